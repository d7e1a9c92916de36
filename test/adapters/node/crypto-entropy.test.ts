import { describe, expect, it } from "vitest";
import { cryptoEntropy } from "../../../src/adapters/node/crypto-entropy.js";

const uuidV4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("cryptoEntropy", () => {
  it("returns lower-case version 4 UUIDs, each different", () => {
    const ids = Array.from({ length: 1_000 }, () => cryptoEntropy.uuid());
    for (const id of ids) expect(id).toMatch(uuidV4);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
