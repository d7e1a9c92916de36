import type { Entropy } from "../../ports/shared/entropy.js";

const uint32Range = 2 ** 32;

/** A small deterministic generator: the simulator's scheduler and fault injection draw from it. */
export interface Prng {
  /** A uniform integer in [0, 2^32). */
  nextUint32(): number;
  /** A uniform integer in [0, n); n is a positive integer no larger than 2^32. */
  nextInt(n: number): number;
  /** A uniform float in [0, 1). */
  nextFloat(): number;
}

/** mulberry32: one 32-bit state, passes the usual statistical tests, and the same seed replays a run. */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const nextUint32 = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  const nextFloat = (): number => nextUint32() / uint32Range;
  return {
    nextUint32,
    nextFloat,
    nextInt(n: number): number {
      if (!(Number.isInteger(n) && n > 0 && n <= uint32Range)) throw new RangeError(`nextInt needs 1..2^32, got ${n}`);
      return Math.floor(nextFloat() * n);
    },
  };
}

function hex(byte: number): string {
  return byte.toString(16).padStart(2, "0");
}

/** RFC 4122 version 4 UUIDs, lower case, the same sequence for the same seed. */
export function createSeededEntropy(seed: number): Entropy {
  const prng = createPrng(seed);
  return {
    uuid(): string {
      const bytes: number[] = [];
      for (let word = 0; word < 4; word++) {
        const value = prng.nextUint32();
        bytes.push(value >>> 24, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
      }
      // Version 4 in the high nibble of byte 6, variant 10xx in the top bits of byte 8.
      bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40;
      bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
      const text = bytes.map(hex).join("");
      return `${text.slice(0, 8)}-${text.slice(8, 12)}-${text.slice(12, 16)}-${text.slice(16, 20)}-${text.slice(20)}`;
    },
  };
}
