// A seeded generator for the stress suites: a failure names its seed, and STRESS_SEED=<n> replays
// the same choices (the kernel's scheduling is not replayed, so a replay is likely, not certain).

export interface SeededRandom {
  readonly seed: number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
}

export function seededRandom(env: string | undefined = process.env.STRESS_SEED): SeededRandom {
  const seed = env !== undefined && /^\d+$/.test(env) ? Number(env) : Math.floor(Math.random() * 2 ** 31);
  // mulberry32
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  return { seed, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}
