// Who may hold a path: the pure half of a claim and a release. The engine lists the
// claims, reads the records this needs, and applies the plan; a claim is all or nothing.
import type { ClaimName } from "./bus-files.js";
import { type ClaimTarget, keysConflict } from "./claim-paths.js";
import { reapPerCallMax } from "./limits.js";
import { claimTag } from "./observed.js";
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
  /** `path` is `heldPath`'s file under another name (a hard link, or a file moved and linked to). */
  sameFile?: boolean;
  /** The holder's edit took it (it lapses after the holder's last edit of it). */
  observed?: boolean;
}

/** What the marks of observed claims say of the claims in the way. */
export interface ClaimMarks {
  /** Tags (`claimTag`) of the claims marked observed. */
  marked: ReadonlySet<string>;
  /** Marked claims whose holder has not edited them for the lapse: they hold nothing. */
  lapsed: ReadonlySet<ClaimName>;
}

const noMarks: ClaimMarks = { marked: new Set(), lapsed: new Set() };

function isOwnClaim(claim: ClaimName, self: ClaimSelf): boolean {
  return claim.owner === self.id && claim.joinToken === self.joinToken;
}

/** A path claim collides by its key (the same path, or a folder of it); a file's identity claim by
 * its device and inode (the same file under another name). */
function collides(target: ClaimTarget, claim: ClaimName): boolean {
  if (claim.identity === undefined) return keysConflict(target.key, claim.key);
  return target.identity !== undefined && target.identity === claim.identity;
}

/** The claims that could stop these targets: every colliding claim that is not this membership's. */
export function conflictingClaims(
  targets: readonly ClaimTarget[],
  self: ClaimSelf,
  claims: readonly ClaimName[],
): ClaimName[] {
  return claims.filter((claim) => !isOwnClaim(claim, self) && targets.some((target) => collides(target, claim)));
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
  /** Claim files to make: a path claim per key not held, and an identity claim per existing file
   * that has none under this membership (a file made since its path was claimed gets one now). */
  create: ClaimName[];
  /** Orphans in the way, to remove. */
  reap: ClaimName[];
  /** Live conflicts: any one means nothing is claimed. */
  blocked: ClaimConflict[];
}

/** Whether an identity claim still names the file its path leads to: an inode is freed when its
 * file is replaced (an editor's save by rename) and may be reused by an unrelated one. */
export type StillTheFile = (claim: ClaimName, target: ClaimTarget) => boolean;

/** Identity claims whose path claim (the same key, owner and token) is not in `claims`: a claim
 * that reaped the path claim (its owner was expired) left the identity, which then holds nothing. */
export function strayIdentities(claims: readonly ClaimName[]): Set<ClaimName> {
  const paths = new Set<string>();
  for (const claim of claims)
    if (claim.identity === undefined) paths.add(`${claim.owner}~${claim.joinToken}~${claim.key}`);
  const stray = new Set<ClaimName>();
  for (const claim of claims) {
    if (claim.identity !== undefined && !paths.has(`${claim.owner}~${claim.joinToken}~${claim.key}`)) stray.add(claim);
  }
  return stray;
}

const noStray: ReadonlySet<ClaimName> = new Set();

/** `owners` needs every owner of a conflicting claim (an empty map when there is none). */
export function planClaim(
  targets: readonly ClaimTarget[],
  self: ClaimSelf,
  claims: readonly ClaimName[],
  owners: Owners,
  stillTheFile: StillTheFile,
  marks: ClaimMarks = noMarks,
): ClaimPlan {
  const own = new Set<string>();
  for (const claim of claims) {
    if (isOwnClaim(claim, self)) own.add(claim.identity === undefined ? claim.key : `#${claim.identity}#${claim.key}`);
  }
  const plan: ClaimPlan = { held: [], create: [], reap: [], blocked: [] };
  for (const { key, identity } of targets) {
    if (own.has(key)) plan.held.push(key);
    else plan.create.push({ key, owner: self.id, joinToken: self.joinToken });
    if (identity !== undefined && !own.has(`#${identity}#${key}`)) {
      plan.create.push({ key, owner: self.id, joinToken: self.joinToken, identity });
    }
  }
  const conflicting = conflictingClaims(targets, self, claims);
  // Only an identity claim in the way can be stray: most checks meet none and skip the pass.
  const stray = conflicting.some((claim) => claim.identity !== undefined) ? strayIdentities(claims) : noStray;
  for (const claim of conflicting) {
    const holder = stray.has(claim) || marks.lapsed.has(claim) ? undefined : liveHolder(claim, owners);
    if (holder === undefined) {
      if (plan.reap.length < reapPerCallMax) plan.reap.push(claim);
      continue;
    }
    const sameFile = claim.identity !== undefined;
    for (const target of targets) {
      if (!collides(target, claim) || (sameFile && !stillTheFile(claim, target))) continue;
      // A key claimed outright collides by its path and by its file: said once, by the path.
      const seen = plan.blocked.findIndex(
        (b) => b.path === target.key && b.heldPath === claim.key && b.holder.id === holder.id,
      );
      const conflict: ClaimConflict = { path: target.key, heldPath: claim.key, holder };
      if (sameFile) conflict.sameFile = true;
      if (marks.marked.has(claimTag(claim))) conflict.observed = true;
      if (seen < 0) plan.blocked.push(conflict);
      else if (!sameFile) plan.blocked[seen] = conflict;
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
