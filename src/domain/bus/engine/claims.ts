// `claim` and `release` across processes without a lock: create every claim file, list
// again, and back off when a live session's claim collides; orphans in the way are reaped.
import { err, ok, type Result } from "neverthrow";
import type { BusError } from "../bus-errors.js";
import type { ClaimName } from "../bus-files.js";
import { type ClaimTarget, canonicalize, resolveClaimTargets } from "../claim-paths.js";
import {
  type ClaimMarks,
  type ClaimSelf,
  conflictingClaims,
  type Holder,
  type Owners,
  planClaim,
  planRelease,
  type StillTheFile,
} from "../claim-rules.js";
import { claimsListedMax, ownerReadsMax, pathsPerCallMax } from "../limits.js";
import { claimTag, markedTags } from "../observed.js";
import { type BusContext, fromStore } from "./context.js";
import { lapsedObserved } from "./lapsed.js";
import type { Membership } from "./membership.js";
import { pathLookup } from "./path-lookup.js";
import { readOwners } from "./peers.js";

export interface ClaimReport {
  /** Every key asked for, now held by this session. */
  claimed: string[];
  /** Of those, the ones it held already. */
  alreadyHeld: string[];
}

export interface ReleaseReport {
  released: string[];
  notClaimed: string[];
  heldByOthers: { path: string; holder: Holder }[];
}

function targetsOf(ctx: BusContext, paths: readonly string[]): Result<ClaimTarget[], BusError> {
  if (paths.length === 0) return err({ kind: "missing", field: "paths" });
  if (paths.length > pathsPerCallMax) return err({ kind: "too-many-paths", count: paths.length, max: pathsPerCallMax });
  return resolveClaimTargets(paths, ctx.place, pathLookup(ctx));
}

/** A live holder's identity claim in the way still names the file its key leads to, read in the
 * worktree of the file it collides with (a hard link joins two names of one worktree; every
 * worktree keys its files alike). */
export function stillTheFile(ctx: BusContext): StillTheFile {
  return (claim, target) => {
    const lookup = pathLookup(ctx);
    const top = target.top ?? ctx.place.root;
    return lookup.identity(canonicalize(`${top}/${claim.key}`, lookup.realpath))?.id === claim.identity;
  };
}

/** Every claim of claims/ and the marks of the observed ones, or an error when it holds more than
 * one listing reads: a claim or release decided on part of them could miss a collision or its own
 * (fail closed). */
export function allClaims(ctx: BusContext): Result<{ claims: ClaimName[]; marks: ClaimName[] }, BusError> {
  return fromStore(ctx.store.listClaims()).andThen((listed) =>
    listed.truncated
      ? err<{ claims: ClaimName[]; marks: ClaimName[] }, BusError>({
          kind: "claims-unlisted",
          entriesMax: claimsListedMax,
        })
      : ok({ claims: listed.claims, marks: listed.marks }),
  );
}

interface Look {
  claims: ClaimName[];
  /** The marked tags of every claim, the lapsed among the colliding ones. */
  marks: ClaimMarks;
  owners: Owners;
}

/** The claims now, and the owners and marks of those that could stop these keys (read only when
 * some could). */
export function look(ctx: BusContext, keys: readonly ClaimTarget[], self: ClaimSelf): Result<Look, BusError> {
  const listed = allClaims(ctx);
  if (listed.isErr()) return err(listed.error);
  const { claims } = listed.value;
  const marked = markedTags(listed.value.marks);
  const colliding = conflictingClaims(keys, self, claims);
  if (colliding.length === 0) return ok({ claims, marks: { marked, lapsed: new Set() }, owners: new Map() });
  // Records after claims: a claim made after its record was written always finds it. Each owner is
  // read by its record's own name, so dead sessions' records beside it cannot hide it.
  const ownerIds = new Set(colliding.map((claim) => claim.owner));
  const owners = readOwners(ctx, ownerIds, ownerReadsMax);
  if (owners.isErr()) return err(owners.error);
  const lapsed = lapsedObserved(ctx, colliding, marked);
  return ok({ claims, marks: { marked, lapsed }, owners: owners.value });
}

/** Removes claims in the way that hold nothing, and the marks of the observed ones among them. */
function reap(ctx: BusContext, claims: readonly ClaimName[], marks: ClaimMarks): void {
  if (claims.length === 0) return;
  ctx.store.removeClaims(claims);
  const marked = claims.filter((claim) => claim.identity === undefined && marks.marked.has(claimTag(claim)));
  if (marked.length > 0) ctx.store.removeMarks(marked);
}

/** An explicit claim (the `claim` action) holds until released; an observed one (an edit's) lapses
 * after the last edit. Either is all or nothing, by the same protocol and the same store. */
type ClaimMode = "explicit" | "observed";

export function claim(
  ctx: BusContext,
  membership: Membership,
  paths: readonly string[],
  mode: ClaimMode = "explicit",
): Result<ClaimReport, BusError> {
  const targets = targetsOf(ctx, paths);
  if (targets.isErr()) return err(targets.error);
  return claimTargets(ctx, membership, targets.value, mode);
}

export function claimTargets(
  ctx: BusContext,
  membership: Membership,
  targets: readonly ClaimTarget[],
  mode: ClaimMode,
): Result<ClaimReport, BusError> {
  const refused = refusedBeforeJoining(ctx, membership, targets);
  if (refused !== undefined) return err(refused);
  const joined = membership.ensureJoined();
  if (joined.isErr()) return err(joined.error);
  const { id, joinToken, label } = joined.value;
  const self = { id, joinToken };
  const current = stillTheFile(ctx);
  const before = look(ctx, targets, self);
  if (before.isErr()) return err(before.error);
  const { claims, owners, marks } = before.value;
  const plan = planClaim(targets, self, claims, owners, current, marks);
  reap(ctx, plan.reap, marks);
  if (plan.blocked.length > 0) return err({ kind: "claim-conflict", conflicts: plan.blocked, race: false });
  const observed = mode === "observed";
  const created = fromStore(ctx.store.createClaims(id, joinToken, label, ...split(plan.create), observed));
  if (created.isErr()) return err(created.error);
  const after = look(ctx, targets, self);
  if (after.isErr()) return backOff(ctx, plan.create, after.error, mode);
  const recheck = planClaim(targets, self, after.value.claims, after.value.owners, current, after.value.marks);
  reap(ctx, recheck.reap, after.value.marks);
  if (recheck.blocked.length > 0) {
    return backOff(ctx, plan.create, { kind: "claim-conflict", conflicts: recheck.blocked, race: true }, mode);
  }
  settleMarks(ctx, self, plan.held, marks, mode);
  return ok({ claimed: targets.map((target) => target.key), alreadyHeld: plan.held });
}

/** Keys held before this call: an explicit claim makes an observed one explicit (its mark goes); an
 * observed one (a new edit) stamps it, so it lapses only after this edit. */
function settleMarks(ctx: BusContext, self: ClaimSelf, held: readonly string[], marks: ClaimMarks, mode: ClaimMode) {
  const observed = held
    .map((key) => ({ key, owner: self.id, joinToken: self.joinToken }))
    .filter((claim) => marks.marked.has(claimTag(claim)));
  if (observed.length === 0) return;
  if (mode === "explicit") ctx.store.removeMarks(observed);
  else for (const claim of observed) ctx.store.stampClaim(claim, ctx.clock.now());
}

/** A session not on the bus yet whose claim a live session's claim blocks is refused before the
 * implicit join, so a refusal leaves it off the bus. Only a refusal is decided here: a claim that
 * may go ahead joins, then looks again (the protocol below never starts from this look). */
function refusedBeforeJoining(
  ctx: BusContext,
  membership: Membership,
  targets: readonly ClaimTarget[],
): BusError | undefined {
  const identity = membership.identity();
  if (membership.member() !== undefined || identity === undefined || ctx.ready().isErr()) return undefined;
  // No join token yet: none of the claims on disk is this membership's.
  const self = { id: identity.id, joinToken: "" };
  const seen = look(ctx, targets, self);
  if (seen.isErr()) return undefined;
  const { claims, owners, marks } = seen.value;
  const plan = planClaim(targets, self, claims, owners, stillTheFile(ctx), marks);
  // A claim under this session's own id is a twin process's, whose membership the join takes over.
  const blocked = plan.blocked.filter((conflict) => conflict.holder.id !== identity.id);
  return blocked.length > 0 ? { kind: "claim-conflict", conflicts: blocked, race: false } : undefined;
}

/** The claims to make as the store takes them: path keys, and identities beside their keys. */
function split(claims: readonly ClaimName[]): [string[], { key: string; identity: string }[]] {
  const keys: string[] = [];
  const identities: { key: string; identity: string }[] = [];
  for (const { key, identity } of claims) {
    if (identity === undefined) keys.push(key);
    else identities.push({ key, identity });
  }
  return [keys, identities];
}

/** All or nothing: the claims this call made go (with their marks); the ones held before it stay. */
function backOff(
  ctx: BusContext,
  made: readonly ClaimName[],
  error: BusError,
  mode: ClaimMode,
): Result<never, BusError> {
  ctx.store.removeClaims(made);
  if (mode === "observed") ctx.store.removeMarks(made.filter((claim) => claim.identity === undefined));
  return err(error);
}

export function release(
  ctx: BusContext,
  membership: Membership,
  paths: readonly string[],
): Result<ReleaseReport, BusError> {
  const targets = targetsOf(ctx, paths);
  if (targets.isErr()) return err(targets.error);
  return releaseKeys(
    ctx,
    membership,
    targets.value.map((target) => target.key),
  );
}

/** Release by the stored keys, resolving nothing (the board's `x`): a stored key is relative to its
 * taker's repository root, and re-resolving it against a cwd below that root would miss it.
 * An identity claim carries its path's key, so it goes with it. */
export function releaseKeys(
  ctx: BusContext,
  membership: Membership,
  keys: readonly string[],
): Result<ReleaseReport, BusError> {
  const joined = membership.ensureJoined();
  if (joined.isErr()) return err(joined.error);
  const listed = allClaims(ctx);
  if (listed.isErr()) return err(listed.error);
  const onKeys = listed.value.claims.filter((c) => keys.includes(c.key));
  // Another's claim on these keys is reaped only when its owner's own record says it is no longer live.
  const others = new Set(onKeys.filter((c) => c.owner !== joined.value.id).map((c) => c.owner));
  const owners = others.size > 0 ? readOwners(ctx, others, ownerReadsMax) : ok(new Map());
  if (owners.isErr()) return err(owners.error);
  const plan = planRelease(keys, joined.value.id, onKeys, owners.value);
  const removed = fromStore(ctx.store.removeClaims(plan.remove));
  if (removed.isErr()) return err(removed.error);
  const gone = new Set(plan.remove.map(claimTag));
  const marks = listed.value.marks.filter((mark) => gone.has(claimTag(mark)));
  if (marks.length > 0) ctx.store.removeMarks(marks);
  return ok({ released: plan.released, notClaimed: plan.notClaimed, heldByOthers: plan.heldByOthers });
}
