// The physical prune (on status and claim): claims listed before records, so a claim made in
// the middle of it keeps its owner; then the plan, applied.
import { err, ok, type Result } from "neverthrow";
import type { FileCount, StoredOffer } from "../../../ports/bus/bus-store.js";
import type { BusError } from "../bus-errors.js";
import type { BusMessage, ClaimName } from "../bus-files.js";
import { ownerReadsMax, pruneFilesLookedMax, tmpLeftoverAgeMs } from "../limits.js";
import { planPrune } from "../prune-rules.js";
import type { JudgedSession } from "../session-liveness.js";
import { type BusContext, fromStore } from "./context.js";
import { tellExpired } from "./expired-unread.js";
import { pruneOffers } from "./handoff.js";
import { lapsedObserved } from "./lapsed.js";
import type { Membership } from "./membership.js";
import { type Peers, readPeers, readSessions } from "./peers.js";

interface PruneOutcome {
  /** The sessions as judged for the prune (the ones it removed included). */
  peers: Peers;
  /** The claims as listed before the records were read (the ones it reaped included), and the marks
   * of the observed ones. */
  claims: ClaimName[];
  marks: ClaimName[];
  /** The observed claims among `claims` that have lapsed (reaped by it, their owner live). */
  lapsed: ReadonlySet<ClaimName>;
  /** The handoff offers that still stand. */
  offers: StoredOffer[];
  /** Records judged expired, whether or not their removal succeeded. */
  recordsExpired: number;
  recordsRemoved: number;
  claimsReaped: number;
  messagesExpired: number;
  /** Files left in each inbox the prune walked: the unread badges, without a second listing. */
  unread: Map<string, FileCount>;
}

function prune(ctx: BusContext, selfId: string | undefined): Result<PruneOutcome, BusError> {
  // Inboxes are listed before the records are read: a join writes its record before it makes its
  // inbox, so every inbox listed here has its record in the read below. Listed after, a session
  // joining between the two reads had an inbox and no record yet, and its new inbox was dropped.
  const inboxes = fromStore(ctx.store.listInboxes());
  if (inboxes.isErr()) return err(inboxes.error);
  const claims = fromStore(ctx.store.listClaims());
  if (claims.isErr()) return err(claims.error);
  const peers = readPeers(ctx);
  if (peers.isErr()) return err(peers.error);
  const owners = unlistedOwners(ctx, peers.value, claims.value.claims);
  if (owners.isErr()) return err(owners.error);
  const nowMs = ctx.clock.now();
  const lapsed = lapsedObserved(ctx, claims.value.claims, claims.value.marks);
  const plan = planPrune({
    sessions: [...peers.value.sessions, ...owners.value.found],
    claims: claims.value.claims,
    inboxes: inboxes.value,
    selfId,
    nowMs,
    trustedNowMs: ctx.silence.trustedNow(nowMs, ctx.clock.monotonic()),
    sessionsComplete: !peers.value.truncated,
    absentOwners: owners.value.absent,
    marks: claims.value.marks,
    lapsed,
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
  const unmarked = plan.removeMarks.filter((mark) => !stillThere.has(mark.owner));
  if (unmarked.length > 0) ctx.store.removeMarks(unmarked);
  const { messagesExpired, unread, expired } = pruneInboxes(ctx, plan.pruneInboxes, plan.messagesBeforeMs);
  if (expired.length > 0) tellExpired(ctx, peers.value, expired);
  const offers = peers.value.truncated ? [] : pruneOffers(ctx, peers.value.sessions, selfId);
  ctx.store.sweepTmp(nowMs, tmpLeftoverAgeMs);
  return ok({
    peers: peers.value,
    claims: claims.value.claims,
    marks: claims.value.marks,
    lapsed,
    offers,
    recordsExpired: plan.removeRecords.length,
    recordsRemoved,
    claimsReaped: reaped,
    messagesExpired,
    unread,
  });
}

/** Per bus: the inbox where the last prune's budget ran out; the next prune begins after it (that
 * inbox's own turn goes on when the round comes back), so a huge inbox early in the order does not
 * leave the ones after it never looked at. */
const nextInbox = new WeakMap<BusContext, string>();

/** Every inbox loses its expired mail, within one budget of files looked at (pruneFilesLookedMax)
 * for them all; each is still listed, for its unread count. */
function pruneInboxes(
  ctx: BusContext,
  inboxes: readonly { id: string; dropEmpty: boolean }[],
  beforeMs: number,
): { messagesExpired: number; unread: Map<string, FileCount>; expired: BusMessage[] } {
  const from = nextInbox.get(ctx);
  const at = from === undefined ? -1 : inboxes.findIndex((inbox) => inbox.id > from);
  const ordered = at <= 0 ? inboxes : [...inboxes.slice(at), ...inboxes.slice(0, at)];
  nextInbox.delete(ctx);
  let looksLeft = pruneFilesLookedMax;
  let messagesExpired = 0;
  const unread = new Map<string, FileCount>();
  const expired: BusMessage[] = [];
  for (const { id, dropEmpty } of ordered) {
    const pruned = ctx.store.pruneInbox(id, beforeMs, dropEmpty, looksLeft);
    if (pruned.isErr()) continue;
    messagesExpired += pruned.value.removed;
    expired.push(...pruned.value.expired);
    unread.set(id, pruned.value.left);
    looksLeft -= pruned.value.looked;
    if (looksLeft <= 0 && !nextInbox.has(ctx)) nextInbox.set(ctx, id);
  }
  return { messagesExpired, unread, expired };
}

/** When sessions/ was cut at its bound: the owners of claims the listing did not reach, read by their
 * records' own names (at most ownerReadsMax a prune; the rest wait, their claims untouched). */
function unlistedOwners(
  ctx: BusContext,
  peers: Peers,
  claims: readonly ClaimName[],
): Result<{ found: JudgedSession[]; absent: Set<string> }, BusError> {
  const absent = new Set<string>();
  if (!peers.truncated) return ok({ found: [], absent });
  const listed = new Set(peers.sessions.map((s) => s.record.id));
  const ids = [...new Set(claims.map((c) => c.owner).filter((id) => !listed.has(id)))].slice(0, ownerReadsMax);
  return readSessions(ctx, ids).map((found) => {
    const there = new Set(found.map((s) => s.record.id));
    for (const id of ids) if (!there.has(id)) absent.add(id);
    return { found, absent };
  });
}

/** The prune as this session runs it: only a member's own record is spared. An id whose record a
 * dead earlier process wrote (a session resumed after a crash, not joined yet) is judged like any
 * other, so that process's claims are freed. */
export function pruneAs(ctx: BusContext, membership: Membership): Result<PruneOutcome, BusError> {
  return prune(ctx, membership.member() === undefined ? undefined : membership.identity()?.id);
}
