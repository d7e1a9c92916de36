import { err, ok, type Result } from "neverthrow";
import type { ProcessIdentity, ProcessReport } from "../../ports/shared/process-probe.js";
import { either, integer, isNull, oneOf, record, text } from "../shared/shape.js";
import { msFromIso } from "../shared/text/iso-time.js";
import { type Address, isAddress } from "./address.js";
import { recordFreshMs } from "./limits.js";

/** `running/<address>.json`: who runs, where, and whether it works or waits. */
export interface RunningRecord {
  address: string;
  name?: string;
  cwd: string;
  pid: number;
  started?: string;
  /** Extra fields (the spec tolerates them): where the pid was recorded. */
  bootId?: string;
  pidNamespace?: string;
  state: "idle" | "busy";
  waitingOn: string;
  updated: string;
}

const recordShape = record(
  {
    address: text({ minLength: 1 }),
    name: text(),
    cwd: text(),
    pid: integer(1),
    started: text(),
    bootId: text({ minLength: 1 }),
    pidNamespace: text({ minLength: 1 }),
    state: oneOf(["idle", "busy"]),
    waitingOn: text(),
    updated: text(),
  },
  ["name", "started", "bootId", "pidNamespace"],
);

// Read tolerantly: another implementation may omit state/waitingOn/updated or add fields.
interface StoredRecord {
  address: string;
  name?: string | null;
  cwd?: string;
  pid: number;
  started?: string | null;
  bootId?: string | null;
  pidNamespace?: string | null;
  state?: string;
  waitingOn?: string | null;
  updated?: string;
}

const storedShape = record(
  {
    address: text({ minLength: 1 }),
    name: either(text(), isNull),
    cwd: text(),
    pid: integer(1),
    started: either(text(), isNull),
    bootId: either(text(), isNull),
    pidNamespace: either(text(), isNull),
    state: text(),
    waitingOn: either(text(), isNull),
    updated: text(),
  },
  ["name", "cwd", "started", "bootId", "pidNamespace", "state", "waitingOn", "updated"],
);

export type RecordError = { kind: "bad-record"; reason: string };

/** Reads a running record; `fileAddress` is the address its file name claims. */
export function decodeRunningRecord(text: string, fileAddress: Address): Result<RunningRecord, RecordError> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return err({ kind: "bad-record", reason: "not JSON" });
  }
  if (storedShape(raw, "") !== undefined) return err({ kind: "bad-record", reason: "wrong shape" });
  const stored = raw as StoredRecord;
  if (stored.address !== fileAddress || !isAddress(stored.address)) {
    return err({ kind: "bad-record", reason: "address does not match its file" });
  }
  const decoded: RunningRecord = {
    address: stored.address,
    cwd: stored.cwd ?? "",
    pid: stored.pid,
    state: stored.state === "busy" ? "busy" : "idle",
    waitingOn: stored.waitingOn ?? "",
    updated: stored.updated ?? "",
  };
  if (typeof stored.name === "string" && stored.name !== "") decoded.name = stored.name;
  if (typeof stored.started === "string" && stored.started !== "") decoded.started = stored.started;
  if (typeof stored.bootId === "string" && stored.bootId !== "") decoded.bootId = stored.bootId;
  if (typeof stored.pidNamespace === "string" && stored.pidNamespace !== "") decoded.pidNamespace = stored.pidNamespace;
  return ok(decoded);
}

export function encodeRunningRecord(record: RunningRecord): string {
  if (recordShape(record, "") !== undefined || !isAddress(record.address)) {
    throw new Error("refusing to write an invalid running record");
  }
  return `${JSON.stringify(record)}\n`;
}

export type RecordVerdict =
  /** Judged here by its pid and start token. */
  | { kind: "running"; liveness: "alive" | "unknown"; stopped: boolean }
  /** Recorded in another pid namespace (a sandbox, a container): its pid cannot be judged from
   * here, so only a fresh `updated` tells that it runs. Never deleted by a reader here. */
  | { kind: "elsewhere"; fresh: boolean }
  /** Its process is gone (or its pid reused, or it ran before this boot): its reader deletes it. */
  | { kind: "gone" };

/** Whether `updated` is at most `recordFreshMs` old (a time ahead of the clock counts as fresh). */
export function isFreshRecord(record: RunningRecord, nowMs: number): boolean {
  const updatedMs = msFromIso(record.updated);
  return updatedMs !== undefined && nowMs - updatedMs <= recordFreshMs;
}

/** How a reader running as `here` judges a record. The namespace comes first: namespace inodes
 * repeat across boots, and another kernel (a gVisor sandbox) has its own boot id. A record
 * without a namespace or boot id (another implementation's) is judged by pid and token alone. */
export function judgeRecord(
  record: RunningRecord,
  here: ProcessIdentity,
  nowMs: number,
  examine: (pid: number, started: string | undefined) => ProcessReport,
): RecordVerdict {
  if (record.pidNamespace !== undefined && record.pidNamespace !== here.pidNamespace) {
    return { kind: "elsewhere", fresh: isFreshRecord(record, nowMs) };
  }
  if (record.bootId !== undefined && here.bootId !== undefined && record.bootId !== here.bootId)
    return { kind: "gone" };
  const { liveness, stopped } = examine(record.pid, record.started);
  return liveness === "gone" ? { kind: "gone" } : { kind: "running", liveness, stopped };
}
