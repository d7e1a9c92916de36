// The sessions of this bus as this process judges them right now: one listing, one probe per record.
import { err, ok, type Result } from "neverthrow";
import type { StoredRecord } from "../../../ports/bus/bus-store.js";
import type { BusError } from "../bus-errors.js";
import type { Owners } from "../claim-rules.js";
import type { LabelHolder } from "../labels.js";
import { recordsListedMax } from "../limits.js";
import { ownersOf } from "../prune-rules.js";
import { type JudgedSession, judgeSession } from "../session-liveness.js";
import { type BusContext, fromStore } from "./context.js";

export interface Peers {
  sessions: JudgedSession[];
  /** Files of sessions/ this build cannot read: left alone. */
  unreadable: number;
  /** sessions/ held more than one listing reads: a session missing here may still be there. */
  truncated: boolean;
}

/** Judges records read now, each by its heartbeat, its process and how long this reader has seen it
 * silent. */
function judgeAll(ctx: BusContext, stored: readonly StoredRecord[]): JudgedSession[] {
  const nowMs = ctx.clock.now();
  const monotonicMs = ctx.clock.monotonic();
  const examine = (pid: number, started: string | undefined) => ctx.probe.examine(pid, started);
  return stored.map((s) =>
    judgeSession(s, ctx.self, nowMs, ctx.silence.silentFor(s.record.id, s.heartbeatMs, monotonicMs), examine),
  );
}

export function readPeers(ctx: BusContext): Result<Peers, BusError> {
  return fromStore(ctx.store.listRecords()).map((listing) => {
    if (!listing.truncated) ctx.silence.keepOnly(new Set(listing.records.map((s) => s.record.id)));
    return {
      sessions: judgeAll(ctx, listing.records),
      unreadable: listing.unreadable.length,
      truncated: listing.truncated,
    };
  });
}

/** The sessions of these ids, each read by its own record's name (no listing): complete however many
 * records lie beside them. An id with no record is simply not among them. */
export function readSessions(ctx: BusContext, ids: Iterable<string>): Result<JudgedSession[], BusError> {
  const stored: StoredRecord[] = [];
  for (const id of ids) {
    const read = fromStore(ctx.store.readRecord(id));
    if (read.isErr()) return err(read.error);
    if (read.value !== undefined) stored.push(read.value);
  }
  return ok(judgeAll(ctx, stored));
}

/** The owners of these claims' owner ids: each read by name while there are few, else one listing
 * (which then must be whole: a missing owner must not read as an orphan). */
export function readOwners(ctx: BusContext, ids: ReadonlySet<string>, readsMax: number): Result<Owners, BusError> {
  if (ids.size <= readsMax) return readSessions(ctx, ids).map(ownersOf);
  return readPeers(ctx).andThen((peers) =>
    peers.truncated
      ? err<Owners, BusError>({ kind: "records-unlisted", entriesMax: recordsListedMax })
      : ok(ownersOf(peers.sessions)),
  );
}

/** The names a new label must not collide with: every active session's label and Pi name, and the
 * names of the running mail sessions (`mailNames`, from the mailbox of this process when loaded). */
export function liveNames(peers: Peers, mailNames: readonly { id: string; name: string }[]): LabelHolder[] {
  const active = peers.sessions.filter((s) => s.state === "active").map((s) => s.record);
  return [
    ...active.map((r) => ({ id: r.id, label: r.label })),
    ...active.flatMap((r) => (r.name === undefined ? [] : [{ id: r.id, label: r.name, name: r.name }])),
    ...mailNames.map((m) => ({ id: m.id, label: m.name, name: m.name })),
  ];
}
