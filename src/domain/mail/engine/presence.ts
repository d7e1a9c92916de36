// This session's running record, and what the records of the others say.
import type { Liveness } from "../../../ports/process-probe.js";
import { isoFromMs } from "../../text/iso-time.js";
import type { Address } from "../address.js";
import type { Addressee } from "../addressing.js";
import type { Sender } from "../labels.js";
import { decodeRunningRecord, encodeRunningRecord, type RunningRecord } from "../running-record.js";
import type { EngineContext } from "./context.js";

export interface ListedSession {
  address: Address;
  name: string | undefined;
  cwd: string;
  state: "idle" | "busy";
  waitingOn: string;
  liveness: Liveness;
  self: boolean;
}

export function writeOwnRecord(ctx: EngineContext): void {
  const { state } = ctx;
  if (state.identity === undefined || state.closed) return;
  const me = ctx.probe.self();
  const record: RunningRecord = {
    address: state.identity.address,
    cwd: state.identity.cwd,
    pid: me.pid,
    state: state.busy ? "busy" : "idle",
    waitingOn: state.waiting?.to ?? state.asking ?? "",
    updated: isoFromMs(ctx.clock.now()),
  };
  if (state.identity.name !== undefined && state.identity.name !== "") record.name = state.identity.name;
  if (me.started !== undefined) record.started = me.started;
  const text = encodeRunningRecord(record);
  const written = ctx.store.writeRunning(state.identity.address, text);
  if (written.isErr()) {
    ctx.warnOnce(
      "record-write",
      `Could not write this session's running record: ${written.error.kind === "io" ? written.error.message : written.error.path}`,
    );
    return;
  }
  state.lastRecordText = text;
}

export function removeOwnRecord(ctx: EngineContext): void {
  const { identity, lastRecordText } = ctx.state;
  if (identity === undefined || lastRecordText === undefined) return;
  ctx.store.removeRunning(identity.address, lastRecordText);
  ctx.state.lastRecordText = undefined;
}

/** Reads one record and judges it; a record whose process is gone is deleted by its reader. */
function judge(
  ctx: EngineContext,
  address: Address,
  text: string,
): { record: RunningRecord; liveness: Liveness } | undefined {
  const decoded = decodeRunningRecord(text, address);
  if (decoded.isErr()) return undefined;
  const record = decoded.value;
  const self = ctx.state.identity?.address === address;
  const liveness = self ? "alive" : ctx.probe.check(record.pid, record.started);
  if (liveness === "gone") {
    ctx.store.removeRunning(address, text);
    return undefined;
  }
  return { record, liveness };
}

/** Every running session, in every agent directory, this one included. */
export function listSessions(ctx: EngineContext): ListedSession[] {
  const entries = ctx.store.listRunning();
  if (entries.isErr()) return [];
  const self = ctx.state.identity?.address;
  const sessions: ListedSession[] = [];
  for (const entry of entries.value) {
    const judged = judge(ctx, entry.address, entry.text);
    if (judged === undefined) continue;
    const { record, liveness } = judged;
    sessions.push({
      address: entry.address,
      name: record.name,
      cwd: record.cwd,
      state: record.state,
      waitingOn: record.waitingOn,
      liveness,
      self: entry.address === self,
    });
  }
  return sessions;
}

export function addressees(sessions: readonly ListedSession[]): Addressee[] {
  return sessions.map((s) => ({ address: s.address, name: s.name }));
}

/** The running session at `address`, or undefined when it is not running. */
export function findRunning(ctx: EngineContext, address: Address): RunningRecord | undefined {
  const text = ctx.store.readRunning(address);
  if (text.isErr() || text.value === undefined) return undefined;
  return judge(ctx, address, text.value)?.record;
}

/** The sender as a label shows it: its name and cwd while it runs; only its id once it has closed. */
export function senderOf(ctx: EngineContext, address: Address, cache: Map<string, Sender>): Sender {
  const known = cache.get(address);
  if (known !== undefined) return known;
  const record = findRunning(ctx, address);
  const sender: Sender = { name: record?.name, cwd: record?.cwd };
  cache.set(address, sender);
  return sender;
}
