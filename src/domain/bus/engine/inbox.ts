// `inbox`: peek at the front, plan the read, consume exactly what it shows (A18-A20).
import { err, ok, type Result } from "neverthrow";
import type { InboxEntry, Unreadable } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { BusError } from "../bus-errors.js";
import { type InboxRow, inboxLimit, planInboxRead } from "../inbox-read.js";
import { inboxLimitMax } from "../limits.js";
import { type BusContext, fromStore } from "./context.js";
import type { Membership } from "./membership.js";

export interface InboxRead {
  rows: InboxRow[];
  /** Mail left behind that the next read returns: the `… N more` line when above 0. */
  more: number;
  /** Mail this build cannot read: named, left on disk, ended by the TTL. */
  unreadable: Unreadable[];
  /** The rows were read but could not be deleted: they will be shown again. */
  consumeFailed: StoreError | undefined;
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
  return fromStore(ctx.store.peekInbox(identity.id, Math.min(max, inboxLimitMax)));
}

/** The ids of the mail in this session's inbox, from the file names alone (nothing is read). */
export function inboxIds(ctx: BusContext, membership: Membership): Result<ReadonlySet<string>, BusError> {
  const identity = membership.identity();
  if (identity === undefined) return err({ kind: "not-started" });
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  return fromStore(ctx.store.peekUnseen(identity.id, 0, new Set())).map((look) => new Set(look.ids));
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
  const self = membership.ensureJoined();
  if (self.isErr()) return err(self.error);
  // One page: the unreadable mail named is what this walk reached (the spec's bound).
  const peek = fromStore(ctx.store.peekInbox(self.value.id, inboxLimitMax));
  if (peek.isErr()) return err(peek.error);
  const plan = planInboxRead(peek.value, inboxLimit(limit));
  const consumed = plan.consume.length > 0 ? ctx.store.consume(self.value.id, plan.consume) : ok([]);
  return ok({
    rows: plan.rows,
    more: plan.more,
    unreadable: plan.unreadable,
    consumeFailed: consumeFailure(consumed, plan.consume),
  });
}
