// A seeded choice, for every simulator: each draws from its own world's generator.
import type { Prng } from "../../../src/adapters/memory/seeded-entropy.js";

/** One of `items`, chosen by the world's generator; undefined when there are none. */
export function pick<T>(world: { prng: Prng }, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[world.prng.nextInt(items.length)];
}
