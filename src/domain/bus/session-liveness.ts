// When a joined session counts as on the bus: evidence first, the heartbeat when there is none.
import type { ProcessIdentity, ProcessReport } from "../../ports/shared/process-probe.js";
import { judgeProcess, type LivenessVerdict } from "../shared/liveness.js";
import type { SessionRecord } from "./bus-files.js";
import { sessionTtlMs } from "./limits.js";

/** active: a recipient, its label and claims held. gone: its process is provably dead, so its label
 * and claims are free at once, but its row stays until its heartbeat ages out. expired: silent past
 * the TTL, whatever runs: pruned. */
export type SessionState = "active" | "gone" | "expired";

export interface JudgedSession {
  record: SessionRecord;
  heartbeatMs: number;
  state: SessionState;
  verdict: LivenessVerdict;
}

/** A session record read at `nowMs` by a process running as `here`, which has watched its heartbeat
 * stand still for `silentForMs` of its own monotonic time. A heartbeat ahead of the clock is fresh.
 * A record whose process is provably gone holds nothing, so its row may go when the wall clock says
 * it aged out. Any other (a hung process, one in another pid namespace, a record with no pid) holds
 * its label and claims until it is past the TTL by the wall clock AND this reader saw it stay silent
 * that long: one wall-clock reading after a step (suspend, NTP) would expire every live peer. */
export function judgeSession(
  stored: { record: SessionRecord; heartbeatMs: number },
  here: ProcessIdentity,
  nowMs: number,
  silentForMs: number,
  examine: (pid: number, started: string | undefined) => ProcessReport,
): JudgedSession {
  const ageMs = nowMs - stored.heartbeatMs;
  const verdict = judgeProcess(stored.record, here, ageMs, sessionTtlMs, examine);
  const stale = ageMs > sessionTtlMs;
  const state: SessionState =
    verdict.kind === "gone"
      ? stale
        ? "expired"
        : "gone"
      : stale && silentForMs >= sessionTtlMs
        ? "expired"
        : "active";
  return { ...stored, state, verdict };
}

/** Whether a record names this very process (the last joiner owns it). */
export function namesProcess(record: SessionRecord, self: ProcessIdentity): boolean {
  return record.pid === self.pid && record.started === self.started;
}
