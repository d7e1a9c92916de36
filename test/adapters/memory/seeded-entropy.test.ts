import { describe, expect, it } from "vitest";
import { createPrng, createSeededEntropy } from "../../../src/adapters/memory/seeded-entropy.js";

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("createSeededEntropy", () => {
  it("returns valid lower-case version 4 UUIDs, all different", () => {
    const entropy = createSeededEntropy(7);
    const ids = Array.from({ length: 2_000 }, () => entropy.uuid());
    for (const id of ids) expect(id).toMatch(uuidV4);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("replays the same UUIDs for the same seed and others for another seed", () => {
    const first = createSeededEntropy(42);
    const second = createSeededEntropy(42);
    const other = createSeededEntropy(43);
    const a = [first.uuid(), first.uuid(), first.uuid()];
    expect([second.uuid(), second.uuid(), second.uuid()]).toEqual(a);
    expect(other.uuid()).not.toBe(a[0]);
  });

  it("pins its sequence, so a seed printed by a failing run replays the same ids later", () => {
    // mulberry32's published first output for seed 1 is 0xa087eaf3; the UUID is its bytes with version and variant set.
    expect(createPrng(1).nextUint32()).toBe(0xa087eaf3);
    const entropy = createSeededEntropy(1);
    expect([entropy.uuid(), entropy.uuid()]).toEqual([
      "a087eaf3-00b3-49c9-8706-c4ebfb2627fd",
      "f7e79d2b-47f6-4630-9ce3-01f0b8829f5c",
    ]);
  });
});

describe("createPrng", () => {
  it("draws integers in [0, n) covering the whole range, and floats in [0, 1)", () => {
    const prng = createPrng(3);
    const seen = new Set<number>();
    for (let i = 0; i < 1_000; i++) {
      const value = prng.nextInt(6);
      expect(Number.isInteger(value) && value >= 0 && value < 6).toBe(true);
      seen.add(value);
      const float = prng.nextFloat();
      expect(float >= 0 && float < 1).toBe(true);
    }
    expect(seen.size).toBe(6);
  });

  it("replays the same draws for the same seed", () => {
    const a = createPrng(99);
    const b = createPrng(99);
    const drawsA = Array.from({ length: 50 }, () => a.nextInt(1_000_000));
    expect(Array.from({ length: 50 }, () => b.nextInt(1_000_000))).toEqual(drawsA);
  });

  it("rejects a range that is empty, fractional or too large", () => {
    const prng = createPrng(0);
    expect(() => prng.nextInt(0)).toThrow(RangeError);
    expect(() => prng.nextInt(2.5)).toThrow(RangeError);
    expect(() => prng.nextInt(2 ** 33)).toThrow(RangeError);
    expect(prng.nextInt(1)).toBe(0);
  });
});
