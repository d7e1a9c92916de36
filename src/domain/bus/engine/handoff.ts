// Handoffs that move claims. A `send` of kind handoff with paths offers the sender's claims on them
// to its one recipient: the claims stay with the sender, and an offer file says what is offered.
// The recipient's `accept` moves them (each claim by one rename, so the key is never free and never
// held twice), or learns the offer lapsed. Leaving, or a prune, removes offers that no longer stand.
import { err, ok, type Result } from "neverthrow";
import type { StoredOffer } from "../../../ports/bus/bus-store.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { BusError } from "../bus-errors.js";
import type { ClaimName, HandoffOffer } from "../bus-files.js";
import type { ClaimTarget } from "../claim-paths.js";
import { type ClaimConflict, type Holder, planClaim } from "../claim-rules.js";
import { ownerReadsMax } from "../limits.js";
import { offerLapse, planAccept } from "../offers.js";
import { ownersOf } from "../prune-rules.js";
import type { JudgedSession } from "../session-liveness.js";
import { allClaims, look } from "./claims.js";
import { type BusContext, fromStore } from "./context.js";
import type { Membership } from "./membership.js";
import { readOwners } from "./peers.js";

/** The path claims a handoff offers, one per key, each held by this membership under its token, or
 * the refusal. Read before anything of the send is written. */
export function offeredClaims(
  ctx: BusContext,
  membership: Membership,
  keys: readonly string[],
): Result<ClaimName[], BusError> {
  const identity = membership.identity();
  const member = membership.member();
  const held = new Map<string, ClaimName>();
  if (identity !== undefined && member !== undefined) {
    const listed = allClaims(ctx);
    if (listed.isErr()) return err(listed.error);
    for (const c of listed.value.claims) {
      if (c.identity === undefined && c.owner === identity.id && c.joinToken === member.joinToken) held.set(c.key, c);
    }
  }
  const unheld = keys.filter((key) => !held.has(key));
  if (unheld.length > 0) return err({ kind: "handoff-unheld", keys: unheld });
  return ok(keys.map((key) => held.get(key) as ClaimName));
}

/** The offer file of a handoff about to be delivered (removed again if the delivery fails), naming
 * the create each offered claim came from. */
export function makeOffer(
  ctx: BusContext,
  from: { id: string; joinToken: string; label: string },
  to: string,
  messageId: string,
  claims: readonly ClaimName[],
): Result<void, BusError> {
  const instances = fromStore(ctx.store.claimInstances(claims));
  if (instances.isErr()) return err(instances.error);
  const offer: HandoffOffer = {
    id: messageId,
    from: from.id,
    fromToken: from.joinToken,
    fromLabel: from.label,
    to,
    keys: claims.map((claim) => claim.key),
    offeredAt: isoFromMs(ctx.clock.now()),
    // A claim read without one (made by an older build) is moved without the check.
    instances: claims.map((claim) => instances.value.get(claim) ?? ""),
  };
  return fromStore(ctx.store.writeOffer(offer));
}

export interface AcceptReport {
  id: string;
  from: Holder;
  /** Keys now held by this session (moved now, or by an earlier accept a crash cut short). */
  taken: string[];
  /** Keys the sender had released since it offered them. */
  released: string[];
  /** Keys moved here that a third session claimed in the same instant: this session let them go,
   * so they are not in `taken` and nothing of them is held here. */
  lost: ClaimConflict[];
}

export function accept(ctx: BusContext, membership: Membership, id: string): Result<AcceptReport, BusError> {
  const joined = membership.ensureJoined();
  if (joined.isErr()) return err(joined.error);
  const self = { id: joined.value.id, joinToken: joined.value.joinToken };
  const stored = fromStore(ctx.store.readOffer(id));
  if (stored.isErr()) return err(stored.error);
  if (stored.value === undefined || stored.value.offer.to !== self.id) return err({ kind: "no-offer", id });
  const { offer, madeMs } = stored.value;
  const owners = readOwners(ctx, new Set([offer.from, offer.to]), ownerReadsMax);
  if (owners.isErr()) return err(owners.error);
  const trustedNowMs = ctx.silence.trustedNow(ctx.clock.now(), ctx.clock.monotonic());
  const lapse = offerLapse(offer, owners.value, self.id, madeMs, trustedNowMs);
  if (lapse !== undefined) {
    ctx.store.removeOffer(id);
    return err({ kind: "offer-lapsed", id, reason: lapse });
  }
  const listed = allClaims(ctx);
  if (listed.isErr()) return err(listed.error);
  const plan = planAccept(offer, self, listed.value.claims, listed.value.marks);
  const taken = [...plan.done];
  const released = [...plan.gone];
  const files: ClaimTarget[] = [];
  for (const move of plan.moves) {
    const moved = fromStore(
      ctx.store.moveClaim(move.path, move.identities, { owner: self.id, joinToken: self.joinToken }, move.instance),
    );
    if (moved.isErr()) return err(moved.error);
    (moved.value ? taken : released).push(move.path.key);
    if (moved.value) for (const { key, identity } of move.identities) files.push({ key, identity });
  }
  ctx.store.removeOffer(id);
  if (taken.length === 0) return err({ kind: "offer-lapsed", id, reason: "released" });
  const lost = inTheWay(ctx, self, taken, files);
  if (lost.isErr()) return err(lost.error);
  // What was lost is let go; what was kept is this session's, and the report says both, so the
  // caller never holds a claim it was told it did not get.
  const lostKeys = new Set(lost.value.map((conflict) => conflict.path));
  const kept = taken.filter((key) => !lostKeys.has(key));
  if (kept.length === 0) return err({ kind: "claim-conflict", conflicts: lost.value, race: true });
  return ok({ id, from: { id: offer.from, label: offer.fromLabel }, taken: kept, released, lost: lost.value });
}

/** Looked again once moved, as every claim looks after it creates: a live claim of a third session
 * on a moved key (one whose listing met the rename mid-way and missed both names) means neither may
 * keep it. This side lets its claims on those keys go, so one holder is left. Looked by file too
 * (the moved identity claims): a sender that kept another name of a moved file still holds it. */
function inTheWay(
  ctx: BusContext,
  self: { id: string; joinToken: string },
  keys: readonly string[],
  files: readonly ClaimTarget[],
): Result<ClaimConflict[], BusError> {
  const targets: ClaimTarget[] = [...keys.map((key) => ({ key })), ...files];
  const seen = look(ctx, targets, self);
  if (seen.isErr()) return err(seen.error);
  const { claims, owners, marks } = seen.value;
  // Two live identity claims of one inode are two holders of one file, whatever file it is now.
  const sameFile = () => true;
  const blocked = planClaim(targets, self, claims, owners, sameFile, marks).blocked;
  if (blocked.length === 0) return ok([]);
  const lostKeys = new Set(blocked.map((b) => b.path));
  const own = claims.filter((c) => c.owner === self.id && c.joinToken === self.joinToken && lostKeys.has(c.key));
  ctx.store.removeClaims(own);
  return ok(blocked);
}

/** Offers this session made or was made, removed when it leaves: they lapse with it. */
export function dropOffersOf(ctx: BusContext, id: string): void {
  const offers = ctx.store.listOffers();
  if (offers.isErr()) return;
  for (const { offer } of offers.value) if (offer.from === id || offer.to === id) ctx.store.removeOffer(offer.id);
}

/** A prune's part: offers that no longer stand go (judged against every record, so only from a
 * whole listing of sessions/); the ones that stand are returned, for the view. */
export function pruneOffers(
  ctx: BusContext,
  sessions: readonly JudgedSession[],
  selfId: string | undefined,
): StoredOffer[] {
  const offers = ctx.store.listOffers();
  if (offers.isErr() || offers.value.length === 0) return [];
  const owners = ownersOf(sessions);
  const trustedNowMs = ctx.silence.trustedNow(ctx.clock.now(), ctx.clock.monotonic());
  return offers.value.filter(({ offer, madeMs }) => {
    if (offerLapse(offer, owners, selfId, madeMs, trustedNowMs) === undefined) return true;
    ctx.store.removeOffer(offer.id);
    return false;
  });
}

/** The offers that stand, for the board (a read: nothing is removed). */
export function standingOffers(ctx: BusContext, sessions: readonly JudgedSession[]): StoredOffer[] {
  const offers = ctx.store.listOffers();
  if (offers.isErr() || offers.value.length === 0) return [];
  const owners = ownersOf(sessions);
  const trustedNowMs = ctx.silence.trustedNow(ctx.clock.now(), ctx.clock.monotonic());
  return offers.value.filter(
    ({ offer, madeMs }) => offerLapse(offer, owners, undefined, madeMs, trustedNowMs) === undefined,
  );
}
