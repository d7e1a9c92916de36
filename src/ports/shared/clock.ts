export interface TimerHandle {
  cancel(): void;
}

/** Time and timers. The virtual clock moves only when a test advances it. */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  now(): number;
  /** Milliseconds on a clock that moves only with time this process saw pass: a wall clock step
   * (NTP, a laptop waking from suspend) does not move it. Its zero is arbitrary. */
  monotonic(): number;
  /** Runs `fn` once after `ms`. */
  setTimer(ms: number, fn: () => void): TimerHandle;
  /** Runs `fn` on a later turn of the event loop (never inside the caller's stack). */
  defer(fn: () => void): TimerHandle;
}
