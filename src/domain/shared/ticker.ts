// What repeats in a session: a named cadence ("every N polls", said once where the bound is
// declared, instead of a bare modulo beside a counter that grows for the life of a session), and
// the one repeating timer both engines run on (the mail poll, the bus heartbeat).
import type { Clock, TimerHandle } from "../../ports/shared/clock.js";

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

/** What a run of a repeating timer asks for: to run again after the interval, or to stop. */
export type RunOutcome = "again" | "done";

export interface RepeatingTimer {
  /** Arms the timer unless it is armed already. */
  start(): void;
  /** Arms it afresh: the next run comes a whole interval from now. */
  restart(): void;
  stop(): void;
  armed(): boolean;
}

/** Runs `run` every `ms` on `clock`, one run at a time (never two timers armed). After a run the
 * timer is armed again when the run asked for it or threw (one bad run must not end every later
 * one), unless the run itself stopped, started or restarted the timer: then that call decides. */
export function createRepeatingTimer(clock: Clock, ms: number, run: () => RunOutcome): RepeatingTimer {
  let handle: TimerHandle | undefined;
  /** Moves on every stop, so a run can tell that it was stopped (or re-armed) while it ran. */
  let generation = 0;
  const arm = () => {
    handle = clock.setTimer(ms, fire);
  };
  const stop = () => {
    generation++;
    handle?.cancel();
    handle = undefined;
  };
  function fire(): void {
    handle = undefined;
    const before = generation;
    let outcome: RunOutcome = "again";
    try {
      outcome = run();
    } finally {
      if (outcome === "again" && generation === before && handle === undefined) arm();
    }
  }
  return {
    start() {
      if (handle === undefined) arm();
    },
    restart() {
      stop();
      arm();
    },
    stop,
    armed: () => handle !== undefined,
  };
}
