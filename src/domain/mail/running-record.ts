import { err, ok, type Result } from "neverthrow";
import type { ProcessIdentity, ProcessReport } from "../../ports/shared/process-probe.js";
import { judgeProcess, type LivenessVerdict } from "../shared/liveness.js";
import { either, integer, isNull, oneOf, record, text } from "../shared/shape.js";
import { msFromIso } from "../shared/text/iso-time.js";
import { type Address, isAddress } from "./address.js";
import { labelFieldCharsMax, recordFreshMs } from "./limits.js";

/** What a person lets reach a session: everything (the default), nothing for now (held back in
 * new/), or nothing at all (sends to it fail at once). Replies always reach it. */
export type MailMode = "accept" | "hold" | "refuse";

/** `running/<address>.json`: who runs, where, and whether it works or waits. */
export interface RunningRecord {
  address: string;
  name?: string;
  /** Extra field: its bus label, which mail reaches it by too. */
  label?: string;
  /** Extra field: its person holds mail back (it stays queued) or refuses it (sends fail at once);
   * absent: mail is taken as the specification says. */
  mailMode?: MailMode;
  /** Extra field: the hop count of the turn in progress, while it is busy and above 0, so a program
   * its tools run (the shell's `switchboard`) carries the count on and a loop through it is refused. */
  hops?: number;
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
    label: text({ minLength: 1, maxLength: labelFieldCharsMax }),
    mailMode: oneOf(["hold", "refuse"]),
    hops: integer(1),
    cwd: text(),
    pid: integer(1),
    started: text(),
    bootId: text({ minLength: 1 }),
    pidNamespace: text({ minLength: 1 }),
    state: oneOf(["idle", "busy"]),
    waitingOn: text(),
    updated: text(),
  },
  ["name", "label", "mailMode", "hops", "started", "bootId", "pidNamespace"],
);

// Read tolerantly: another implementation may omit state/waitingOn/updated or add fields.
interface StoredRecord {
  address: string;
  name?: string | null;
  label?: string | null;
  mailMode?: string | null;
  hops?: unknown;
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
    label: either(text(), isNull),
    mailMode: either(text(), isNull),
    cwd: text(),
    pid: integer(1),
    started: either(text(), isNull),
    bootId: either(text(), isNull),
    pidNamespace: either(text(), isNull),
    state: text(),
    waitingOn: either(text(), isNull),
    updated: text(),
  },
  ["name", "label", "mailMode", "cwd", "started", "bootId", "pidNamespace", "state", "waitingOn", "updated"],
);

type RecordError = { kind: "bad-record"; reason: string };

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
  if (typeof stored.label === "string" && stored.label !== "") decoded.label = stored.label;
  if (stored.mailMode === "hold" || stored.mailMode === "refuse") decoded.mailMode = stored.mailMode;
  if (Number.isSafeInteger(stored.hops) && (stored.hops as number) > 0) decoded.hops = stored.hops as number;
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

type RecordVerdict = LivenessVerdict;

/** Whether `updated` is at most `recordFreshMs` old (a time ahead of the clock counts as fresh). */
export function isFreshRecord(record: RunningRecord, nowMs: number): boolean {
  const updatedMs = msFromIso(record.updated);
  return updatedMs !== undefined && nowMs - updatedMs <= recordFreshMs;
}

/** How a reader running as `here` judges a record: by the shared verdict, its heartbeat `updated`
 * (a record that never says when it was updated is never fresh). */
export function judgeRecord(
  record: RunningRecord,
  here: ProcessIdentity,
  nowMs: number,
  examine: (pid: number, started: string | undefined) => ProcessReport,
): RecordVerdict {
  const updatedMs = msFromIso(record.updated);
  const ageMs = updatedMs === undefined ? Number.POSITIVE_INFINITY : nowMs - updatedMs;
  return judgeProcess(record, here, ageMs, recordFreshMs, examine);
}
