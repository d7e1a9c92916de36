export interface TimerHandle {
  cancel(): void;
}

/** Time and timers. The virtual clock moves only when a test advances it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Runs `fn` once after `ms`. */
  setTimer(ms: number, fn: () => void): TimerHandle;
  /** Runs `fn` on a later turn of the event loop (never inside the caller's stack). */
  defer(fn: () => void): TimerHandle;
}
