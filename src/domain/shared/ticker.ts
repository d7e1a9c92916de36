// A named cadence: "every N polls" said once, where the bound is declared, instead of a bare
// modulo beside a counter that grows for the life of a session.

export interface Ticker {
  /** Counts one tick; true on every `every`-th (the `every`-th, the 2·`every`-th, …). */
  tick(): boolean;
}

export function createTicker(every: number): Ticker {
  if (!Number.isInteger(every) || every < 1) throw new Error(`a ticker needs a whole number of ticks, got ${every}`);
  let count = 0;
  return {
    tick() {
      count = (count + 1) % every;
      return count === 0;
    },
  };
}
