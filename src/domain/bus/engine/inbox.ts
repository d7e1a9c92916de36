// `inbox`: peek at the front, plan the read, take exactly what it shows. Only the record's
// owner reads. What a read shows is set aside, not deleted, until the session has recorded it: a
// process killed between the two loses nothing, and what it never recorded comes back in place.
import { err, ok, type Result } from "neverthrow";
import type { InboxEntry, InboxTime, Unreadable } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { BusError } from "../bus-errors.js";
import { type InboxRow, inboxLimit, planInboxRead } from "../inbox-read.js";
import { inboxLimitMax, messageTtlMs } from "../limits.js";
import { type BusContext, fromStore } from "./context.js";
import type { Membership } from "./membership.js";

export interface InboxRead {
  rows: InboxRow[];
  /** Mail left behind that the next read returns: the `… N more` line when above 0. */
  more: number;
  /** Mail this build cannot read: named, left on disk, ended by the TTL. */
  unreadable: Unreadable[];
  /** The rows were read but could not be taken out of the inbox: they will be shown again. */
  consumeFailed: StoreError | undefined;
  /** The ids of the messages shown: the record a session keeps of what reached the model. */
  ids?: string[];
}

/** This session's inbox as the board previews it: the front of the queue, never consumed, never a
 * join (a resumed session previews the mail that waited for it before it joins again). */
export interface InboxPreview {
  entries: InboxEntry[];
  /** Every file in the inbox. */
  files: number;
}

export function peekInbox(ctx: BusContext, membership: Membership, max: number): Result<InboxPreview, BusError> {
  const identity = membership.identity();
  if (identity === undefined) return err({ kind: "not-started" });
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  return fromStore(ctx.store.peekInbox(identity.id, Math.min(max, inboxLimitMax), inboxTime(ctx)));
}

/** The ids of the mail in this session's inbox, from the file names alone (nothing is read). */
export function inboxIds(ctx: BusContext, membership: Membership): Result<ReadonlySet<string>, BusError> {
  const identity = membership.identity();
  if (identity === undefined) return err({ kind: "not-started" });
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  return fromStore(ctx.store.inboxIds(identity.id, ctx.clock.now()));
}

/** Now, and the arrival before which mail has expired: it is never returned, pruned or not. */
export function inboxTime(ctx: BusContext): InboxTime {
  const nowMs = ctx.clock.now();
  // By the clock this reader trusts: a wall clock step is no time the mail waited.
  const trustedMs = Math.min(nowMs, ctx.silence.trustedNow(nowMs, ctx.clock.monotonic()));
  return { nowMs, expiredBeforeMs: trustedMs - messageTtlMs };
}

/** Shown mail set aside by this process, or by one that is gone: deleted when the session recorded
 * it, put back where it was otherwise. A live twin's is its own to settle. */
export function settleShown(ctx: BusContext, id: string): void {
  const recorded = ctx.host.recorded;
  if (recorded === undefined) return;
  const aside = ctx.store.listAside(id);
  if (aside.isErr() || aside.value.length === 0) return;
  const mine = aside.value.filter(
    (entry) => entry.reader === ctx.self.pid || ctx.probe.check(entry.reader, undefined) === "gone",
  );
  if (mine.length === 0) return;
  const shown = recorded.call(
    ctx.host,
    mine.map((entry) => entry.messageId),
  );
  const reached = mine.filter((entry) => shown.has(entry.messageId));
  const missed = mine.filter((entry) => !shown.has(entry.messageId));
  if (reached.length > 0) ctx.store.dropAside(id, reached);
  if (missed.length > 0) ctx.store.restoreAside(id, missed);
}

/** A read whose rows were not all deleted: they come back, and the result says so. */
function consumeFailure(consumed: Result<string[], StoreError>, asked: readonly string[]): StoreError | undefined {
  if (consumed.isErr()) return consumed.error;
  const left = asked.filter((name) => !consumed.value.includes(name));
  if (left.length === 0) return undefined;
  const message = `${left.length} shown messages could not be removed`;
  return { kind: "io", op: "unlink", path: left[0] ?? "", code: "EIO", message };
}

export function readInbox(
  ctx: BusContext,
  membership: Membership,
  limit: number | undefined,
): Result<InboxRead, BusError> {
  const self = membership.ensureJoined().andThen((joined) => membership.checkOwner().map(() => joined));
  if (self.isErr()) return err(self.error);
  const { id } = self.value;
  settleShown(ctx, id);
  // One page: the unreadable mail named is what this walk reached (the spec's bound).
  const peek = fromStore(ctx.store.peekInbox(id, inboxLimitMax, inboxTime(ctx)));
  if (peek.isErr()) return err(peek.error);
  const plan = planInboxRead(peek.value, inboxLimit(limit));
  const take = (names: string[]) =>
    ctx.host.recorded === undefined ? ctx.store.consume(id, names) : ctx.store.setAside(id, names, ctx.self.pid);
  const consumed = plan.consume.length > 0 ? take(plan.consume) : ok([]);
  return ok({
    rows: plan.rows,
    more: plan.more,
    unreadable: plan.unreadable,
    consumeFailed: consumeFailure(consumed, plan.consume),
    // A folded duplicate reached the model as its row's count: recorded as shown with it.
    ids: plan.rows.flatMap((row) => [row.message.id, ...row.foldedIds]),
  });
}
