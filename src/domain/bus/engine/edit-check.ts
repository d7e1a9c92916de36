// The check before the model's edit or write of a path: whether a live session other than this one
// holds it (or a folder above it). Checking is a read: it never joins, never writes a record, and
// reaps nothing. A joined session that observes then claims the path it is about to edit (an
// observed claim), by the same all-or-nothing protocol as any claim.
import { err, ok, type Result } from "neverthrow";
import type { BusError } from "../bus-errors.js";
import type { ClaimName } from "../bus-files.js";
import { type ClaimTarget, resolveClaimTarget } from "../claim-paths.js";
import { type ClaimConflict, planClaim } from "../claim-rules.js";
import { claimTag } from "../observed.js";
import { claimTargets, look, stillTheFile } from "./claims.js";
import { type BusContext, fromStore } from "./context.js";
import type { Membership } from "./membership.js";
import { pathLookup } from "./path-lookup.js";

export type EditVerdict =
  /** Nobody else holds it, or it is no path a claim could name (outside the repository). */
  | { kind: "free" }
  /** This session holds it (or a folder above it). */
  | { kind: "own" }
  /** Nobody held it: this session's edit claimed it now (observed). */
  | { kind: "observed"; key: string }
  /** A live session holds it: the edit must not go ahead. `race`: its observed claim met another
   * session's claim made at the same moment, and both let go. */
  | { kind: "held"; conflict: ClaimConflict; sinceMs: number | undefined; race?: boolean };

export function checkEdit(ctx: BusContext, membership: Membership, path: string): Result<EditVerdict, BusError> {
  const identity = membership.identity();
  if (identity === undefined) return ok({ kind: "free" });
  const target = resolveClaimTarget(path, ctx.place, pathLookup(ctx));
  // What cannot be claimed (outside the repository, the root itself) is nobody's to guard.
  if (target.isErr()) return ok({ kind: "free" });
  const member = membership.member();
  // Not on the bus: no claim is this membership's; a claim under this session's own id is a twin
  // process's of this very session, never another's.
  const self = { id: identity.id, joinToken: member?.joinToken ?? "" };
  const seen = look(ctx, [target.value], self);
  if (seen.isErr()) return err(seen.error);
  const { claims, owners, marks } = seen.value;
  const plan = planClaim([target.value], self, claims, owners, stillTheFile(ctx), marks);
  const blocked = plan.blocked.filter((conflict) => member !== undefined || conflict.holder.id !== identity.id);
  const first = blocked[0];
  if (first !== undefined) return ok({ kind: "held", conflict: first, sinceMs: since(ctx, claims, first) });
  if (member === undefined) return ok({ kind: "free" });
  const mine = claims.find(
    (c) =>
      c.identity === undefined &&
      c.owner === identity.id &&
      c.joinToken === member.joinToken &&
      covers(c, target.value),
  );
  if (mine !== undefined && mine.key !== target.value.key) return ok({ kind: "own" });
  if (!member.observe) return ok(mine === undefined ? { kind: "free" } : { kind: "own" });
  // Claimed on the edit, or stamped: an observed claim lapses only after its last edit.
  if (mine !== undefined && !marks.marked.has(claimTag(mine))) return ok({ kind: "own" });
  const claimed = claimTargets(ctx, membership, [target.value], "observed");
  if (claimed.isOk()) return ok(mine === undefined ? { kind: "observed", key: target.value.key } : { kind: "own" });
  const lost = claimed.error;
  if (lost.kind !== "claim-conflict" || lost.conflicts[0] === undefined) return err(lost);
  const conflict = lost.conflicts[0];
  return ok({ kind: "held", conflict, sinceMs: since(ctx, claims, conflict), race: lost.race });
}

/** A claim of this key or of a folder above it. */
function covers(claim: ClaimName, target: ClaimTarget): boolean {
  return claim.key === target.key || target.key.startsWith(`${claim.key}/`);
}

/** When the claim in the way was made, or last stamped by an edit (an observed one). */
function since(ctx: BusContext, claims: readonly ClaimName[], conflict: ClaimConflict): number | undefined {
  const held = claims.find(
    (c) => c.identity === undefined && c.key === conflict.heldPath && c.owner === conflict.holder.id,
  );
  if (held === undefined) return undefined;
  const stamps = fromStore(ctx.store.claimTimes([held]));
  return stamps.isOk() ? stamps.value.get(held) : undefined;
}
