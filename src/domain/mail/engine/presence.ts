// This session's running record, and what the records of the others say. Owns what it last wrote
// and the recent verdicts on senders' records.
import type { Liveness } from "../../../ports/shared/process-probe.js";
import { forgetOldest } from "../../shared/bounded-id-set.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import { sameLabel } from "../../shared/text/same-label.js";
import type { Address } from "../address.js";
import type { Sender } from "../framing.js";
import { idPrefixCharsMin, recordRefreshIntervalMs, senderJudgedMs, sendersRememberedMax } from "../limits.js";
import {
  decodeRunningRecord,
  encodeRunningRecord,
  judgeRecord,
  type MailMode,
  type RunningRecord,
} from "../running-record.js";
import type { MailContext } from "./context.js";
import type { Ownership } from "./ownership.js";

export interface Presence {
  /** Writes this session's record (not a guest's: the owner's process keeps it). */
  write(): void;
  /** Rewrites the record once its last write is recordRefreshIntervalMs old (or the clock went
   * back): a reader in another pid namespace knows this session runs only by a fresh `updated`. */
  refresh(): void;
  remove(): void;
  /** Every running session, in every agent directory, this one included. */
  list(): ListedSession[];
  /** The running sessions a typed `to` could name. */
  named(to: string): Map<Address, JudgedRecord>;
  /** The running session at `address` as judged now, or undefined when it is not running. */
  find(address: Address): JudgedRecord | undefined;
  /** The record `text` read at `address`, judged now: undefined when it shows no running session. */
  judgeRecordText(address: Address, text: string): JudgedRecord | undefined;
  findRunning(address: Address): RunningRecord | undefined;
  /** The sender as a label shows it; `cache` holds the verdicts of one batch. */
  senderOf(address: Address, cache: Map<string, Sender>): Sender;
}

interface PresenceState {
  lastRecordText: string | undefined;
  /** When this session last wrote its record; unset until the first write. */
  lastRecordWriteMs: number | undefined;
  /** Recent verdicts on senders' records, for labels: the record's text, when, and what it showed. */
  senders: Map<Address, { text: string; atMs: number; sender: Sender }>;
}

/** What this session's record says of it now: kept by the run and the asks, read at each write. */
interface PresenceStatus {
  busy(): boolean;
  /** The address an ask of this session waits on. */
  waitingOn(): string | undefined;
  /** The hop count of the turn in progress. */
  hops(): number;
}

interface PresenceParts {
  ownership: Ownership;
  status: PresenceStatus;
}

export function createPresence(ctx: MailContext, parts: PresenceParts): Presence {
  const s: PresenceState = { lastRecordText: undefined, lastRecordWriteMs: undefined, senders: new Map() };
  return {
    write: () => writeOwnRecord(ctx, parts, s),
    refresh() {
      const last = s.lastRecordWriteMs;
      const now = ctx.clock.now();
      const due = last === undefined || now < last || now - last >= recordRefreshIntervalMs;
      if (due || recordLost(ctx, s)) writeOwnRecord(ctx, parts, s);
    },
    remove() {
      const address = ctx.session.address();
      if (address === undefined || s.lastRecordText === undefined) return;
      ctx.store.removeRunning(address, s.lastRecordText);
      s.lastRecordText = undefined;
    },
    list: () => listSessions(ctx),
    named: (to) => sessionsNamed(ctx, to),
    find: (address) => findSession(ctx, address),
    judgeRecordText: (address, text) => judgeRunningEntry(ctx, address, text),
    findRunning: (address) => findSession(ctx, address)?.record,
    senderOf: (address, cache) => senderOf(ctx, s, address, cache),
  };
}

export interface ListedSession {
  address: Address;
  name: string | undefined;
  /** Its bus label, when its record carries one. */
  label: string | undefined;
  cwd: string;
  state: "idle" | "busy";
  waitingOn: string;
  /** The hop count of its turn in progress (0 when idle or when its record does not say). */
  hops: number;
  /** What its person lets reach it. */
  mailMode: MailMode;
  liveness: Liveness;
  /** Its process is stopped (Ctrl-Z): it reads no mail until it is continued. */
  stopped: boolean;
  /** Its record comes from another pid namespace (a sandbox, a container): its process cannot be
   * checked from here; it is listed while its record is fresh. */
  elsewhere: boolean;
  self: boolean;
}

/** A record judged to belong to a running session. */
interface JudgedRecord {
  record: RunningRecord;
  liveness: Liveness;
  stopped: boolean;
  elsewhere: boolean;
}

function writeOwnRecord(ctx: MailContext, parts: PresenceParts, s: PresenceState): void {
  const identity = ctx.session.identity();
  // A guest leaves the record to the process that owns the inbox.
  if (identity === undefined || ctx.session.closed() || parts.ownership.guest()) return;
  const me = ctx.probe.self();
  const now = ctx.clock.now();
  const record: RunningRecord = {
    address: identity.address,
    cwd: identity.cwd,
    pid: me.pid,
    state: parts.status.busy() ? "busy" : "idle",
    waitingOn: parts.status.waitingOn() ?? "",
    updated: isoFromMs(now),
  };
  if (identity.name !== undefined && identity.name !== "") record.name = identity.name;
  if (identity.label !== undefined && identity.label !== "") record.label = identity.label;
  // Asked only while busy: the count may come from the bus of this process, whose answer is not
  // worth loading for an idle session (at its start, say).
  const hops = record.state === "busy" ? parts.status.hops() : 0;
  if (hops > 0) record.hops = hops;
  const mode = ctx.session.mailMode();
  if (mode !== "accept") record.mailMode = mode;
  if (me.started !== undefined) record.started = me.started;
  if (me.bootId !== undefined) record.bootId = me.bootId;
  if (me.pidNamespace !== undefined) record.pidNamespace = me.pidNamespace;
  const text = encodeRunningRecord(record);
  // Set before the write: a failing disk is tried again at the next refresh, not at every poll.
  s.lastRecordWriteMs = now;
  const written = ctx.store.writeRunning(identity.address, text);
  if (written.isErr()) {
    ctx.notices.once("record-write", { kind: "record-unwritten", error: written.error });
    return;
  }
  s.lastRecordText = text;
}

/** A record this session wrote is no longer there: a reaper that died between moving a stale
 * record aside and putting back the one that replaced it (this session restarting meanwhile), or
 * someone's rm. Checked at every poll (one lstat), so the session is back in listings within one
 * poll, not at its next refresh. */
function recordLost(ctx: MailContext, s: PresenceState): boolean {
  const address = ctx.session.address();
  return address !== undefined && s.lastRecordText !== undefined && !ctx.store.hasRunning(address);
}

/** Reads one record and judges it; a record whose process is gone is deleted by its reader, one
 * from another pid namespace never is (it is left out once stale). */
function judgeRunningEntry(ctx: MailContext, address: Address, text: string): JudgedRecord | undefined {
  const decoded = decodeRunningRecord(text, address);
  if (decoded.isErr()) return undefined;
  const record = decoded.value;
  if (ctx.session.address() === address) return { record, liveness: "alive", stopped: false, elsewhere: false };
  const verdict = judgeRecord(record, ctx.probe.self(), ctx.clock.now(), (pid, started) =>
    ctx.probe.examine(pid, started),
  );
  switch (verdict.kind) {
    case "gone":
      ctx.store.removeRunning(address, text);
      return undefined;
    case "elsewhere":
      return verdict.fresh ? { record, liveness: "unknown", stopped: false, elsewhere: true } : undefined;
    case "running":
      return { record, liveness: verdict.liveness, stopped: verdict.stopped, elsewhere: false };
    default: {
      const never: never = verdict;
      return never;
    }
  }
}

function listSessions(ctx: MailContext): ListedSession[] {
  const entries = ctx.store.listRunning();
  if (entries.isErr()) return [];
  const self = ctx.session.address();
  const sessions: ListedSession[] = [];
  for (const entry of entries.value) {
    const judged = judgeRunningEntry(ctx, entry.address, entry.text);
    if (judged === undefined) continue;
    const { record, liveness, stopped, elsewhere } = judged;
    sessions.push({
      address: entry.address,
      name: record.name,
      label: record.label,
      cwd: record.cwd,
      state: record.state,
      waitingOn: record.waitingOn,
      hops: record.hops ?? 0,
      mailMode: record.mailMode ?? "accept",
      liveness,
      stopped,
      elsewhere,
      self: entry.address === self,
    });
  }
  return sessions;
}

/** The running sessions a typed `to` could name: by address, by name or bus label, or by an id prefix.
 * Only those are judged (a /proc read each); the other records are only parsed. Resolving among
 * 200 records so judges one or two, and the verdicts are kept for the send that follows. */
function sessionsNamed(ctx: MailContext, to: string): Map<Address, JudgedRecord> {
  const found = new Map<Address, JudgedRecord>();
  const entries = ctx.store.listRunning();
  if (entries.isErr()) return found;
  const wanted = to.trim();
  const byPrefix = wanted.length >= idPrefixCharsMin;
  for (const entry of entries.value) {
    const decoded = decodeRunningRecord(entry.text, entry.address);
    if (decoded.isErr()) continue;
    const { address, name, label } = decoded.value;
    const labelled = label !== undefined && sameLabel(label, wanted);
    if (address !== wanted && name !== wanted && !labelled && !(byPrefix && address.startsWith(wanted))) continue;
    const judged = judgeRunningEntry(ctx, entry.address, entry.text);
    if (judged !== undefined) found.set(entry.address, judged);
  }
  return found;
}

function findSession(ctx: MailContext, address: Address): JudgedRecord | undefined {
  const text = ctx.store.readRunning(address);
  if (text.isErr() || text.value === undefined) return undefined;
  return judgeRunningEntry(ctx, address, text.value);
}

/** The sender as a label shows it: its name and cwd while it runs; only its id once it has closed.
 * A verdict on an unchanged record is reused for senderJudgedMs: judging goes through /proc, and
 * on the path from a sender's rename to the model it was the biggest cost after the claim itself. */
function senderOf(ctx: MailContext, s: PresenceState, address: Address, cache: Map<string, Sender>): Sender {
  const known = cache.get(address);
  if (known !== undefined) return known;
  const text = ctx.store.readRunning(address);
  const now = ctx.clock.now();
  let sender: Sender = { name: undefined, cwd: undefined };
  if (text.isOk() && text.value !== undefined) {
    const memo = s.senders.get(address);
    if (memo !== undefined && memo.text === text.value && now - memo.atMs < senderJudgedMs && now >= memo.atMs) {
      sender = memo.sender;
    } else {
      const record = judgeRunningEntry(ctx, address, text.value)?.record;
      sender = { name: record?.name, cwd: record?.cwd };
      s.senders.delete(address);
      s.senders.set(address, { text: text.value, atMs: now, sender });
      forgetOldest(s.senders, sendersRememberedMax);
    }
  }
  cache.set(address, sender);
  return sender;
}
