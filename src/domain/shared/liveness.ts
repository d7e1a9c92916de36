// One verdict on "is the process that wrote this record still there?", for every context: the mail
// half's running records and the bus's session records are judged by the same evidence.
import type { ProcessIdentity, ProcessReport } from "../../ports/shared/process-probe.js";

/** What a record says about the process that owns it. */
interface RecordedProcess {
  /** Absent in a record another implementation wrote without one: judged by its heartbeat alone. */
  pid?: number | undefined;
  started?: string;
  bootId?: string;
  pidNamespace?: string;
}

export type LivenessVerdict =
  /** Judged here by its pid and start token. */
  | { kind: "running"; liveness: "alive" | "unknown"; stopped: boolean }
  /** Recorded in another pid namespace (a sandbox, a container): its pid cannot be judged from
   * here, so only a fresh heartbeat tells that it runs. Never deleted by a reader here for it. */
  | { kind: "elsewhere"; fresh: boolean }
  /** Its process is gone (or its pid reused, or it ran before this boot). */
  | { kind: "gone" };

/** How a reader running as `here` judges a record whose heartbeat is `heartbeatAgeMs` old (a
 * negative age, a heartbeat ahead of the clock, is fresh). The namespace comes first: namespace
 * inodes repeat across boots, and another kernel (a gVisor sandbox) has its own boot id. A record
 * without a namespace or boot id (another implementation's) is judged by pid and token alone. */
export function judgeProcess(
  recorded: RecordedProcess,
  here: ProcessIdentity,
  heartbeatAgeMs: number,
  freshMs: number,
  examine: (pid: number, started: string | undefined) => ProcessReport,
): LivenessVerdict {
  if (recorded.pidNamespace !== undefined && recorded.pidNamespace !== here.pidNamespace) {
    return { kind: "elsewhere", fresh: heartbeatAgeMs <= freshMs };
  }
  if (recorded.bootId !== undefined && here.bootId !== undefined && recorded.bootId !== here.bootId)
    return { kind: "gone" };
  // No pid is no evidence either way: never called dead for it, the heartbeat decides.
  if (recorded.pid === undefined) return { kind: "running", liveness: "unknown", stopped: false };
  const { liveness, stopped } = examine(recorded.pid, recorded.started);
  return liveness === "gone" ? { kind: "gone" } : { kind: "running", liveness, stopped };
}
