// Which live peers' claims a git command would touch in the worktree it runs in: the paths it covers
// (its pathspecs from where it runs, or the whole tree) against the claims held there, narrowed to
// the claimed files git says have something to lose. Keys are relative to the worktree's top, as
// claims are, so a claim in another worktree of the repository (another copy of the file) is not
// touched. A pathspec this reader cannot place (a glob, pathspec magic, a word the shell makes up)
// makes the whole command unknown, and unknown passes.
import { keysConflict } from "../claim-paths.js";
import type { PeerClaim } from "../engine/index.js";
import { isWithin, relativeBelow } from "../posix-path.js";
import type { Scope } from "./git-command.js";

/** Where git runs: the canonical top of its worktree, and its folder relative to that top. */
interface WorktreePlace {
  top: string;
  prefix: string;
}

/** The keys (relative to the top) a scope covers; "all" for the whole tree, undefined if unknown. */
export function scopeKeys(scope: Scope, place: WorktreePlace): string[] | "all" | undefined {
  if (scope.kind === "all") return "all";
  const keys: string[] = [];
  for (const spec of scope.specs) {
    const key = specKey(spec, place);
    if (key === undefined) return undefined;
    if (key === "") return "all";
    keys.push(key);
  }
  return keys;
}

function specKey(spec: string | undefined, place: WorktreePlace): string | undefined {
  if (spec === undefined || /[*?[\\]/.test(spec)) return undefined;
  if (spec.startsWith(":")) return spec.startsWith(":/") ? normalized("", spec.slice(2)) : undefined;
  if (spec.startsWith("/")) {
    if (!isWithin(place.top, spec)) return undefined;
    return spec === place.top ? "" : normalized("", relativeBelow(place.top, spec));
  }
  return normalized(place.prefix, spec);
}

/** `rest` below `base` (both relative to the top), `.` and `..` resolved; undefined above the top. */
function normalized(base: string, rest: string): string | undefined {
  const out = base.split("/").filter((s) => s !== "");
  for (const segment of rest.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") out.push(segment);
    else if (out.pop() === undefined) return undefined;
  }
  return out.join("/");
}

/** The claims held in this worktree that the scope reaches, and the paths to ask git about: for
 * each pair that overlaps, the deeper of the claim and the pathspec. */
export function reachedClaims(
  keys: readonly string[] | "all",
  claims: readonly PeerClaim[],
  top: string,
): { claims: PeerClaim[]; paths: string[] } {
  const reached: PeerClaim[] = [];
  const paths = new Set<string>();
  for (const claim of claims) {
    if (claim.root !== top) continue;
    const overlapping = keys === "all" ? [claim.key] : keys.filter((key) => keysConflict(key, claim.key));
    if (overlapping.length === 0) continue;
    reached.push(claim);
    for (const key of overlapping) paths.add(key.length >= claim.key.length ? key : claim.key);
  }
  return { claims: reached, paths: [...paths] };
}

/** The reached claims one of the `changed` paths (files git names) falls in. */
export function touchedClaims(reached: readonly PeerClaim[], changed: readonly string[]): PeerClaim[] {
  return reached.filter((claim) => changed.some((path) => keysConflict(path, claim.key)));
}
