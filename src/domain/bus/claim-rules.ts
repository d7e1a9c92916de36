// Who may hold a path (A24, A27): the pure half of a claim and a release. The engine lists the
// claims, reads the records this needs, and applies the plan; a claim is all or nothing.
import type { ClaimName } from "./bus-files.js";
import { keysConflict } from "./claim-paths.js";
import { reapPerCallMax } from "./limits.js";
import type { SessionState } from "./session-liveness.js";

/** A claim's owner as its record says, read after the claim was listed. */
export interface ClaimOwner {
  joinToken: string;
  label: string;
  state: SessionState;
}

export type Owners = ReadonlyMap<string, ClaimOwner>;

/** This session's membership: its claims carry this token. */
export interface ClaimSelf {
  id: string;
  joinToken: string;
}

export interface Holder {
  id: string;
  label: string;
}

/** `path` (asked for) collides with `heldPath`, held by a live session. */
export interface ClaimConflict {
  path: string;
  heldPath: string;
  holder: Holder;
}

function isOwnClaim(claim: ClaimName, self: ClaimSelf): boolean {
  return claim.owner === self.id && claim.joinToken === self.joinToken;
}

/** The claims that could stop these keys: every colliding claim that is not this membership's. */
export function conflictingClaims(keys: readonly string[], self: ClaimSelf, claims: readonly ClaimName[]): ClaimName[] {
  return claims.filter((claim) => !isOwnClaim(claim, self) && keys.some((key) => keysConflict(key, claim.key)));
}

/** The live holder of a claim, or undefined for an orphan: owner record missing, carrying another
 * token (the owner joined again since), or its session gone or expired. */
export function liveHolder(claim: ClaimName, owners: Owners): Holder | undefined {
  const owner = owners.get(claim.owner);
  if (owner === undefined || owner.joinToken !== claim.joinToken || owner.state !== "active") return undefined;
  return { id: claim.owner, label: owner.label };
}

interface ClaimPlan {
  /** Keys this membership holds already: a no-op success. */
  held: string[];
  /** Keys to create a claim file for. */
  create: string[];
  /** Orphans in the way, to remove. */
  reap: ClaimName[];
  /** Live conflicts: any one means nothing is claimed. */
  blocked: ClaimConflict[];
}

/** `owners` needs every owner of a conflicting claim (an empty map when there is none). */
export function planClaim(
  keys: readonly string[],
  self: ClaimSelf,
  claims: readonly ClaimName[],
  owners: Owners,
): ClaimPlan {
  const own = new Set(claims.filter((claim) => isOwnClaim(claim, self)).map((claim) => claim.key));
  const plan: ClaimPlan = {
    held: keys.filter((key) => own.has(key)),
    create: keys.filter((key) => !own.has(key)),
    reap: [],
    blocked: [],
  };
  for (const claim of conflictingClaims(keys, self, claims)) {
    const holder = liveHolder(claim, owners);
    if (holder === undefined) {
      if (plan.reap.length < reapPerCallMax) plan.reap.push(claim);
      continue;
    }
    for (const key of keys) {
      if (keysConflict(key, claim.key)) plan.blocked.push({ path: key, heldPath: claim.key, holder });
    }
  }
  return plan;
}

interface ReleasePlan {
  /** Claim files to remove: this session's own on the keys asked, and orphans found on them. */
  remove: ClaimName[];
  released: string[];
  notClaimed: string[];
  /** Keys a live session other than this one holds: reported, never touched. */
  heldByOthers: { path: string; holder: Holder }[];
}

/** A release is by exact key and by owner only; an own claim under an older token is removed too. */
export function planRelease(
  keys: readonly string[],
  selfId: string,
  claims: readonly ClaimName[],
  owners: Owners,
): ReleasePlan {
  const plan: ReleasePlan = { remove: [], released: [], notClaimed: [], heldByOthers: [] };
  for (const key of keys) {
    const onKey = claims.filter((claim) => claim.key === key);
    const own = onKey.filter((claim) => claim.owner === selfId);
    const others = onKey.filter((claim) => claim.owner !== selfId);
    const live = others.flatMap((claim) => liveHolder(claim, owners) ?? []);
    plan.remove.push(...own, ...others.filter((claim) => liveHolder(claim, owners) === undefined));
    if (own.length > 0) plan.released.push(key);
    else if (live[0] !== undefined) plan.heldByOthers.push({ path: key, holder: live[0] });
    else plan.notClaimed.push(key);
  }
  return plan;
}
