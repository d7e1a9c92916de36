import type { Clock, TimerHandle } from "../../ports/shared/clock.js";

/** Timers fired by one advance; more means a callback keeps rescheduling itself with no delay (a bug). */
const firesPerAdvanceMax = 100_000;
/** Deferred callbacks run by one runDeferred; more means a callback keeps deferring itself (a bug). */
const deferredPerRunMax = 100_000;

/**
 * A clock that moves only when the test moves it.
 *
 * Like Node, it keeps two times: timers run on a monotonic time that only `advance` moves, while
 * `now()` is that time plus a wall offset that `jump` shifts. A wall clock jump (NTP, a laptop
 * waking up) therefore changes `now()` but fires no timer early and delays none, as in a real process.
 */
export interface VirtualClock extends Clock {
  /** Moves time forward by `ms`, firing due timers in order (by due time, then scheduling order),
   * including timers those callbacks schedule if they fall due within the step. Returns timers fired. */
  advance(ms: number): number;
  /** Runs queued defer callbacks in order, including ones queued while running. Returns callbacks run. */
  runDeferred(): number;
  /** Shifts the wall clock (`now()`) by `ms`, forward or back; timers are not touched. */
  jump(ms: number): void;
  /** Timers scheduled and neither fired nor cancelled. */
  pendingTimers(): number;
  /** The `now()` at which the next timer fires if the wall clock does not jump; undefined when none. */
  nextTimerAt(): number | undefined;
  /** Deferred callbacks queued and neither run nor cancelled. */
  pendingDeferred(): number;
}

interface PendingTimer {
  dueMs: number;
  seq: number;
  fn: () => void;
}

function nonNegativeDelay(ms: number): number {
  return Number.isNaN(ms) || ms < 0 ? 0 : ms;
}

function earliest(timers: Iterable<PendingTimer>): PendingTimer | undefined {
  let best: PendingTimer | undefined;
  for (const timer of timers) {
    if (best === undefined || timer.dueMs < best.dueMs || (timer.dueMs === best.dueMs && timer.seq < best.seq)) {
      best = timer;
    }
  }
  return best;
}

export function createVirtualClock(startMs: number): VirtualClock {
  let monotonicMs = startMs;
  let wallOffsetMs = 0;
  let seq = 0;
  const timers = new Map<number, PendingTimer>();
  const deferred = new Map<number, () => void>();

  const advance = (ms: number): number => {
    if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`advance needs a finite duration >= 0, got ${ms}`);
    const targetMs = monotonicMs + ms;
    let fired = 0;
    for (let next = earliest(timers.values()); next !== undefined && next.dueMs <= targetMs; ) {
      if (fired >= firesPerAdvanceMax) throw new Error(`more than ${firesPerAdvanceMax} timers fired in one advance`);
      timers.delete(next.seq);
      monotonicMs = Math.max(monotonicMs, next.dueMs);
      fired++;
      next.fn();
      next = earliest(timers.values());
    }
    monotonicMs = targetMs;
    return fired;
  };

  const runDeferred = (): number => {
    let ran = 0;
    // Maps iterate in insertion order and visit entries added during the loop: FIFO, newcomers included.
    for (const [id, fn] of deferred) {
      if (ran >= deferredPerRunMax) throw new Error(`more than ${deferredPerRunMax} deferred callbacks in one run`);
      deferred.delete(id);
      ran++;
      fn();
    }
    return ran;
  };

  return {
    now: () => monotonicMs + wallOffsetMs,
    monotonic: () => monotonicMs,
    setTimer(ms: number, fn: () => void): TimerHandle {
      const id = seq++;
      timers.set(id, { dueMs: monotonicMs + nonNegativeDelay(ms), seq: id, fn });
      return { cancel: () => void timers.delete(id) };
    },
    defer(fn: () => void): TimerHandle {
      const id = seq++;
      deferred.set(id, fn);
      return { cancel: () => void deferred.delete(id) };
    },
    advance,
    runDeferred,
    jump(ms: number): void {
      if (!Number.isFinite(ms)) throw new RangeError(`jump needs a finite duration, got ${ms}`);
      wallOffsetMs += ms;
    },
    pendingTimers: () => timers.size,
    nextTimerAt(): number | undefined {
      const next = earliest(timers.values());
      return next === undefined ? undefined : next.dueMs + wallOffsetMs;
    },
    pendingDeferred: () => deferred.size,
  };
}
