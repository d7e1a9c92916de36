// When a joined session counts as on the bus (A3): evidence first, the heartbeat when there is none.
import type { ProcessIdentity, ProcessReport } from "../../ports/shared/process-probe.js";
import { judgeProcess, type LivenessVerdict } from "../shared/liveness.js";
import type { SessionRecord } from "./bus-files.js";
import { sessionTtlMs } from "./limits.js";

/** active: a recipient, its label and claims held. gone: its process is provably dead, so its label
 * and claims are free at once, but its row stays until its heartbeat ages out. expired: the heartbeat is older than the TTL, whatever runs: pruned. */
export type SessionState = "active" | "gone" | "expired";

export interface JudgedSession {
  record: SessionRecord;
  heartbeatMs: number;
  state: SessionState;
  verdict: LivenessVerdict;
}

/** A session record read at `nowMs` by a process running as `here`. A hung process (alive, silent)
 * holds its label and claims until the TTL; a heartbeat ahead of the clock is fresh. */
export function judgeSession(
  stored: { record: SessionRecord; heartbeatMs: number },
  here: ProcessIdentity,
  nowMs: number,
  examine: (pid: number, started: string | undefined) => ProcessReport,
): JudgedSession {
  const ageMs = nowMs - stored.heartbeatMs;
  const verdict = judgeProcess(stored.record, here, ageMs, sessionTtlMs, examine);
  // A silent record from another namespace is past the TTL by then: expired, like a hung one.
  const state: SessionState = ageMs > sessionTtlMs ? "expired" : verdict.kind === "gone" ? "gone" : "active";
  return { ...stored, state, verdict };
}

/** Whether a record names this very process (the last joiner owns it, A34). */
export function namesProcess(record: SessionRecord, self: ProcessIdentity): boolean {
  return record.pid === self.pid && record.started === self.started;
}
