import { err, ok, type Result } from "neverthrow";
import type { Liveness } from "../../ports/process-probe.js";
import { either, integer, isNull, oneOf, record, text } from "../shape.js";
import { type Address, isAddress } from "./address.js";

/** `running/<address>.json`: who runs, where, and whether it works or waits. */
export interface RunningRecord {
  address: string;
  name?: string;
  cwd: string;
  pid: number;
  started?: string;
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
    state: oneOf(["idle", "busy"]),
    waitingOn: text(),
    updated: text(),
  },
  ["name", "started"],
);

// Read tolerantly: another implementation may omit state/waitingOn/updated or add fields.
interface StoredRecord {
  address: string;
  name?: string | null;
  cwd?: string;
  pid: number;
  started?: string | null;
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
    state: text(),
    waitingOn: either(text(), isNull),
    updated: text(),
  },
  ["name", "cwd", "started", "state", "waitingOn", "updated"],
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
  return ok(decoded);
}

export function encodeRunningRecord(record: RunningRecord): string {
  if (recordShape(record, "") !== undefined || !isAddress(record.address)) {
    throw new Error("refusing to write an invalid running record");
  }
  return `${JSON.stringify(record)}\n`;
}

/** The liveness of a record from what the probe says of its pid and start token. A record
 * without a token (or a platform without one) is judged by the pid alone, inside the probe. */
export function recordLiveness(
  record: RunningRecord,
  probe: (pid: number, started: string | undefined) => Liveness,
): Liveness {
  return probe(record.pid, record.started);
}
