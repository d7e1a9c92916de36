import type { Clock, TimerHandle } from "../../ports/shared/clock.js";

/** setTimeout's largest delay; a longer one would fire at once (with a warning) instead of late. */
const timerDelayMsMax = 2 ** 31 - 1;

function clampDelayMs(ms: number): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.min(ms, timerDelayMsMax);
}

/** Wall clock and Node timers. Every timer is unref'd: a mailbox timer must never keep a process alive. */
export const systemClock: Clock = {
  now: () => Date.now(),
  // CLOCK_MONOTONIC: it stands still while the machine is suspended, and no wall step moves it. Read
  // through process.hrtime, not performance.now(), whose first use loads perf_hooks (eleven internal
  // modules, a few ms of a short program's start).
  monotonic: () => Number(process.hrtime.bigint()) / 1e6,
  setTimer(ms: number, fn: () => void): TimerHandle {
    const timer = setTimeout(fn, clampDelayMs(ms));
    timer.unref();
    return { cancel: () => clearTimeout(timer) };
  },
  defer(fn: () => void): TimerHandle {
    const immediate = setImmediate(fn);
    immediate.unref();
    return { cancel: () => clearImmediate(immediate) };
  },
};
