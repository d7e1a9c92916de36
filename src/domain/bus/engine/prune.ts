// The physical prune (A46: on status and claim): claims listed before records, so a claim made in
// the middle of it keeps its owner; then the plan, applied.
import { err, ok, type Result } from "neverthrow";
import type { BusError } from "../bus-errors.js";
import type { ClaimName } from "../bus-files.js";
import { tmpLeftoverAgeMs } from "../limits.js";
import { planPrune } from "../prune-rules.js";
import { type BusContext, fromStore } from "./context.js";
import type { Membership } from "./membership.js";
import { type Peers, readPeers } from "./peers.js";

interface PruneOutcome {
  /** The sessions as judged for the prune (the ones it removed included). */
  peers: Peers;
  /** The claims as listed before the records were read (the ones it reaped included). */
  claims: ClaimName[];
  /** Records judged expired, whether or not their removal succeeded. */
  recordsExpired: number;
  recordsRemoved: number;
  claimsReaped: number;
  messagesExpired: number;
  /** Files left in each inbox the prune walked: the unread badges, without a second listing. */
  unread: Map<string, number>;
}

function prune(ctx: BusContext, selfId: string | undefined): Result<PruneOutcome, BusError> {
  const claims = fromStore(ctx.store.listClaims());
  if (claims.isErr()) return err(claims.error);
  const peers = readPeers(ctx);
  if (peers.isErr()) return err(peers.error);
  const inboxes = fromStore(ctx.store.listInboxes());
  if (inboxes.isErr()) return err(inboxes.error);
  const nowMs = ctx.clock.now();
  const plan = planPrune({
    sessions: peers.value.sessions,
    claims: claims.value.claims,
    inboxes: inboxes.value,
    selfId,
    nowMs,
  });
  // Each step is retried by the next prune when it fails: none of them is worth failing a read for.
  let recordsRemoved = 0;
  // A record the removal left in place (it beat since, or the removal failed) keeps its claims:
  // they are reaped with the record, never without it.
  const stillThere = new Set<string>();
  for (const { id, joinToken, heartbeatMs } of plan.removeRecords) {
    const removed = ctx.store.removeRecord(id, joinToken, heartbeatMs);
    if (removed.isOk() && removed.value) recordsRemoved++;
    else stillThere.add(id);
  }
  const reap = plan.reapClaims.filter((c) => !stillThere.has(c.owner));
  const reaped = ctx.store.removeClaims(reap).isOk() ? reap.length : 0;
  let messagesExpired = 0;
  const unread = new Map<string, number>();
  for (const { id, dropEmpty } of plan.pruneInboxes) {
    const pruned = ctx.store.pruneInbox(id, plan.messagesBeforeMs, dropEmpty);
    if (pruned.isErr()) continue;
    messagesExpired += pruned.value.removed;
    unread.set(id, pruned.value.left);
  }
  ctx.store.sweepTmp(nowMs, tmpLeftoverAgeMs);
  return ok({
    peers: peers.value,
    claims: claims.value.claims,
    recordsExpired: plan.removeRecords.length,
    recordsRemoved,
    claimsReaped: reaped,
    messagesExpired,
    unread,
  });
}

/** The prune as this session runs it: only a member's own record is spared. An id whose record a
 * dead earlier process wrote (a session resumed after a crash, not joined yet) is judged like any
 * other, so that process's claims are freed. */
export function pruneAs(ctx: BusContext, membership: Membership): Result<PruneOutcome, BusError> {
  return prune(ctx, membership.member() === undefined ? undefined : membership.identity()?.id);
}
