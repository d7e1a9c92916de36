import { err, ok, type Result } from "neverthrow";
import { type Static, Type } from "typebox";
import { Compile } from "typebox/compile";
import type { Liveness } from "../../ports/process-probe.js";
import { later } from "../later.js";
import { type Address, isAddress } from "./address.js";

/** `running/<address>.json`: who runs, where, and whether it works or waits. */
export const RunningRecord = Type.Object({
  address: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.String()),
  cwd: Type.String(),
  pid: Type.Integer({ minimum: 1 }),
  started: Type.Optional(Type.String()),
  state: Type.Union([Type.Literal("idle"), Type.Literal("busy")]),
  waitingOn: Type.String(),
  updated: Type.String(),
});
export type RunningRecord = Static<typeof RunningRecord>;

// Read tolerantly: another implementation may omit state/waitingOn/updated or add fields.
const StoredRecord = Type.Object({
  address: Type.String({ minLength: 1 }),
  name: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  cwd: Type.Optional(Type.String()),
  pid: Type.Integer({ minimum: 1 }),
  started: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  state: Type.Optional(Type.String()),
  waitingOn: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  updated: Type.Optional(Type.String()),
});

const checkRecord = later(() => Compile(RunningRecord));
const checkStored = later(() => Compile(StoredRecord));

export type RecordError = { kind: "bad-record"; reason: string };

/** Reads a running record; `fileAddress` is the address its file name claims. */
export function decodeRunningRecord(text: string, fileAddress: Address): Result<RunningRecord, RecordError> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return err({ kind: "bad-record", reason: "not JSON" });
  }
  if (!checkStored().Check(raw)) return err({ kind: "bad-record", reason: "wrong shape" });
  if (raw.address !== fileAddress || !isAddress(raw.address)) {
    return err({ kind: "bad-record", reason: "address does not match its file" });
  }
  const record: RunningRecord = {
    address: raw.address,
    cwd: raw.cwd ?? "",
    pid: raw.pid,
    state: raw.state === "busy" ? "busy" : "idle",
    waitingOn: raw.waitingOn ?? "",
    updated: raw.updated ?? "",
  };
  if (typeof raw.name === "string" && raw.name !== "") record.name = raw.name;
  if (typeof raw.started === "string" && raw.started !== "") record.started = raw.started;
  return ok(record);
}

export function encodeRunningRecord(record: RunningRecord): string {
  if (!checkRecord().Check(record) || !isAddress(record.address)) {
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
