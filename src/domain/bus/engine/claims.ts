// `claim` and `release` across processes without a lock (A22-A27): create every claim file, list
// again, and back off when a live session's claim collides; orphans in the way are reaped.
import { err, ok, type Result } from "neverthrow";
import type { BusError } from "../bus-errors.js";
import type { ClaimName } from "../bus-files.js";
import { resolveClaimPaths } from "../claim-paths.js";
import { type ClaimSelf, conflictingClaims, type Holder, type Owners, planClaim, planRelease } from "../claim-rules.js";
import { claimsListedMax, pathsPerCallMax } from "../limits.js";
import { ownersOf } from "../prune-rules.js";
import { type BusContext, fromStore } from "./context.js";
import type { Membership } from "./membership.js";
import { readPeers } from "./peers.js";

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

function keysOf(ctx: BusContext, paths: readonly string[]): Result<string[], BusError> {
  if (paths.length === 0) return err({ kind: "missing", field: "paths" });
  if (paths.length > pathsPerCallMax) return err({ kind: "too-many-paths", count: paths.length, max: pathsPerCallMax });
  return resolveClaimPaths(paths, ctx.place, (path) => ctx.realPaths.realpath(path));
}

/** Every claim of claims/, or none and an error when it holds more than one listing reads: a claim
 * or release decided on part of them could miss a collision or its own (fail closed). */
function allClaims(ctx: BusContext): Result<ClaimName[], BusError> {
  return fromStore(ctx.store.listClaims()).andThen((listed) =>
    listed.truncated
      ? err<ClaimName[], BusError>({ kind: "claims-unlisted", entriesMax: claimsListedMax })
      : ok(listed.claims),
  );
}

/** The claims now, and the owners of those that could stop these keys (read only when some could). */
function look(
  ctx: BusContext,
  keys: readonly string[],
  self: ClaimSelf,
): Result<{ claims: ClaimName[]; owners: Owners }, BusError> {
  const listed = allClaims(ctx);
  if (listed.isErr()) return err(listed.error);
  const claims = listed.value;
  if (conflictingClaims(keys, self, claims).length === 0) return ok({ claims, owners: new Map() });
  // Records after claims: a claim made after its record was written always finds it.
  return readPeers(ctx).map((peers) => ({ claims, owners: ownersOf(peers.sessions) }));
}

export function claim(
  ctx: BusContext,
  membership: Membership,
  paths: readonly string[],
): Result<ClaimReport, BusError> {
  const keys = keysOf(ctx, paths);
  if (keys.isErr()) return err(keys.error);
  const refused = refusedBeforeJoining(ctx, membership, keys.value);
  if (refused !== undefined) return err(refused);
  const joined = membership.ensureJoined();
  if (joined.isErr()) return err(joined.error);
  const { id, joinToken, label } = joined.value;
  const self = { id, joinToken };
  const before = look(ctx, keys.value, self);
  if (before.isErr()) return err(before.error);
  const plan = planClaim(keys.value, self, before.value.claims, before.value.owners);
  if (plan.reap.length > 0) ctx.store.removeClaims(plan.reap);
  if (plan.blocked.length > 0) return err({ kind: "claim-conflict", conflicts: plan.blocked, race: false });
  const created = fromStore(ctx.store.createClaims(id, joinToken, label, plan.create));
  if (created.isErr()) return err(created.error);
  const after = look(ctx, keys.value, self);
  if (after.isErr()) return backOff(ctx, self, plan.create, after.error);
  const recheck = planClaim(keys.value, self, after.value.claims, after.value.owners);
  if (recheck.reap.length > 0) ctx.store.removeClaims(recheck.reap);
  if (recheck.blocked.length > 0) {
    return backOff(ctx, self, plan.create, { kind: "claim-conflict", conflicts: recheck.blocked, race: true });
  }
  return ok({ claimed: keys.value, alreadyHeld: plan.held });
}

/** A session not on the bus yet whose claim a live session's claim blocks is refused before the
 * implicit join, so a refusal leaves it off the bus. Only a refusal is decided here: a claim that
 * may go ahead joins, then looks again (the protocol below never starts from this look). */
function refusedBeforeJoining(ctx: BusContext, membership: Membership, keys: readonly string[]): BusError | undefined {
  const identity = membership.identity();
  if (membership.member() !== undefined || identity === undefined || ctx.ready().isErr()) return undefined;
  // No join token yet: none of the claims on disk is this membership's.
  const self = { id: identity.id, joinToken: "" };
  const seen = look(ctx, keys, self);
  if (seen.isErr()) return undefined;
  const plan = planClaim(keys, self, seen.value.claims, seen.value.owners);
  // A claim under this session's own id is a twin process's, whose membership the join takes over (A34).
  const blocked = plan.blocked.filter((conflict) => conflict.holder.id !== identity.id);
  return blocked.length > 0 ? { kind: "claim-conflict", conflicts: blocked, race: false } : undefined;
}

/** All or nothing: the claims this call made go; the ones held before it stay. */
function backOff(ctx: BusContext, self: ClaimSelf, made: readonly string[], error: BusError): Result<never, BusError> {
  ctx.store.removeClaims(made.map((key) => ({ key, owner: self.id, joinToken: self.joinToken })));
  return err(error);
}

export function release(
  ctx: BusContext,
  membership: Membership,
  paths: readonly string[],
): Result<ReleaseReport, BusError> {
  const keys = keysOf(ctx, paths);
  if (keys.isErr()) return err(keys.error);
  return releaseKeys(ctx, membership, keys.value);
}

/** Release by the stored keys, resolving nothing (the board's `x`): a stored key is relative to its
 * taker's repository root, and re-resolving it against a cwd below that root would miss it (A22). */
export function releaseKeys(
  ctx: BusContext,
  membership: Membership,
  keys: readonly string[],
): Result<ReleaseReport, BusError> {
  const joined = membership.ensureJoined();
  if (joined.isErr()) return err(joined.error);
  const listed = allClaims(ctx);
  if (listed.isErr()) return err(listed.error);
  const onKeys = listed.value.filter((c) => keys.includes(c.key));
  const others = onKeys.some((c) => c.owner !== joined.value.id);
  const peers = others ? readPeers(ctx) : ok({ sessions: [], unreadable: 0 });
  if (peers.isErr()) return err(peers.error);
  const plan = planRelease(keys, joined.value.id, onKeys, ownersOf(peers.value.sessions));
  const removed = fromStore(ctx.store.removeClaims(plan.remove));
  if (removed.isErr()) return err(removed.error);
  return ok({ released: plan.released, notClaimed: plan.notClaimed, heldByOthers: plan.heldByOthers });
}
