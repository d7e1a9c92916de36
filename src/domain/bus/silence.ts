// Time this reader saw pass, as opposed to one reading of a wall clock. A wall clock step (a laptop
// waking from suspend, an NTP correction) ages every heartbeat and every message on the bus at once;
// an expiry that frees claims or deletes mail must not rest on that one reading. So a reader keeps,
// across its own calls, how long it has seen each heartbeat stand still on its monotonic clock, and
// how far the wall clock stepped ahead of that clock.
import { clockStepToleranceMs, silenceWatchIdsMax } from "./limits.js";

export interface SilenceWatch {
  /** How long this reader has seen `id`'s heartbeat stand at `heartbeatMs`, by its monotonic clock:
   * 0 the first time it sees that heartbeat. */
  silentFor(id: string, heartbeatMs: number, monotonicMs: number): number;
  /** Forgets every id not in `ids` (the records on disk now). */
  keepOnly(ids: ReadonlySet<string>): void;
  /** The wall clock less every forward step this reader saw it take beyond the monotonic clock
   * between two of its calls: what a message's age is measured against. */
  trustedNow(wallMs: number, monotonicMs: number): number;
}

/** Made when the engine starts, with both clocks read then: a step any time after it is seen. */
export function createSilenceWatch(wallMs: number, monotonicMs: number): SilenceWatch {
  const seen = new Map<string, { heartbeatMs: number; sinceMs: number }>();
  let last = { wallMs, monotonicMs };
  let steppedMs = 0;
  return {
    silentFor(id, heartbeatMs, monotonicMs) {
      const known = seen.get(id);
      if (known !== undefined && known.heartbeatMs === heartbeatMs) return monotonicMs - known.sinceMs;
      // Bounded: a reader that meets more ids than one listing holds starts over (it only waits longer).
      if (known === undefined && seen.size >= silenceWatchIdsMax) seen.clear();
      seen.set(id, { heartbeatMs, sinceMs: monotonicMs });
      return 0;
    },
    keepOnly(ids) {
      for (const id of seen.keys()) if (!ids.has(id)) seen.delete(id);
    },
    trustedNow(wallMs, monotonicMs) {
      const aheadMs = wallMs - last.wallMs - (monotonicMs - last.monotonicMs);
      // A step back only makes ages smaller: nothing expires early for it.
      if (aheadMs > clockStepToleranceMs) steppedMs += aheadMs;
      last = { wallMs, monotonicMs };
      return wallMs - steppedMs;
    },
  };
}
