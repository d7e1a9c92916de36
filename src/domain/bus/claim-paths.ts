// A path a caller names (to claim, release, or mention in a message) made into a claim key: the
// repository-relative posix path of its real target, relative to the innermost
// worktree of this repository that holds it, folded where the file system folds names; and, for an
// existing file, its device and inode. Pure: the caller supplies the file system's answers.
import { err, ok, type Result } from "neverthrow";
import type { FileIdentity, NameFolding } from "../../ports/bus/real-paths.js";
import { pathCharsMax, pathSegmentsMax } from "./limits.js";
import { isWithin, joinLexical, normalizeAbsolute, relativeBelow } from "./posix-path.js";

export type PathError =
  | { kind: "empty-path" }
  | { kind: "path-too-long"; given: string; charsMax: number }
  /** It resolves to the repository itself: a claim on the root would own every file in it. */
  | { kind: "repository-root"; given: string }
  /** The top of another worktree of this repository, nested in this one: the same, for its files. */
  | { kind: "worktree-top"; given: string }
  | { kind: "outside-repository"; given: string };

/** Where paths resolve from and what keys are relative to (canonical), the repository's canonical
 * git common dir, and the session's own spelling of it when its cwd came through a link. */
interface PathPlace {
  root: string;
  cwd: string;
  common: string;
  spelled?: { path: string; canonical: string } | undefined;
}

export type Realpath = (path: string) => string | undefined;

/** What resolving a path asks of the file system (the RealPaths port, its folding probed once). */
export interface PathLookup {
  realpath: Realpath;
  identity(path: string): FileIdentity | undefined;
  gitDirOf(folder: string): string | undefined;
  folding: NameFolding;
}

/** A path resolved to claim: its key, and the device and inode of the file there, if one is. A
 * folder has none: its claim covers what lies below it by the key's prefix. */
export interface ClaimTarget {
  key: string;
  identity?: string | undefined;
  /** With an identity: the canonical worktree top the key is relative to, where a colliding
   * claim's key is looked up to see that it still names the same file. */
  top?: string | undefined;
}

/** The canonical form of an absolute path: the real target of its deepest existing ancestor, the
 * rest appended (a file not created yet can be claimed). */
export function canonicalize(path: string, realpath: Realpath): string {
  const segments = path.split("/").filter((segment) => segment !== "");
  for (let kept = segments.length; kept >= 0; kept--) {
    const real = realpath(`/${segments.slice(0, kept).join("/")}`);
    if (real === undefined) continue;
    const rest = segments.slice(kept);
    const joined = joinLexical(real, rest);
    // A ".." in the rest cancels a folder that does not exist, and may lead back to a link that
    // does: resolved again (the joined path has no ".." left, so once).
    return rest.includes("..") ? canonicalize(joined, realpath) : joined;
  }
  // Not even "/" resolved (no such realpath exists on a real system): lexical is all there is.
  return normalizeAbsolute(path);
}

/** The claim target of `given`, resolved against the cwd, or why it has none. */
export function resolveClaimTarget(
  given: string,
  place: PathPlace,
  lookup: PathLookup,
): Result<ClaimTarget, PathError> {
  if (given.trim() === "") return err({ kind: "empty-path" });
  if (given.length > pathCharsMax || given.split("/").length > pathSegmentsMax) {
    return err({ kind: "path-too-long", given, charsMax: pathCharsMax });
  }
  // An absolute path outside is refused before any link is followed, unless it is written
  // through the session's own spelling of this place; the root is not: the re-keying below refuses
  // it with the sentence that says what happened.
  const path = given.startsWith("/") ? respelled(given, place.spelled) : given;
  if (path.startsWith("/") && !isWithin(place.root, normalizeAbsolute(path))) {
    return err({ kind: "outside-repository", given });
  }
  const absolute = path.startsWith("/") ? path : `${place.cwd}/${path}`;
  const canonical = canonicalize(absolute, lookup.realpath);
  if (canonical === place.root) return err({ kind: "repository-root", given });
  if (!isWithin(place.root, canonical)) return err({ kind: "outside-repository", given });
  const there = lookup.identity(canonical);
  const top = nestedTop(canonical, there?.folder === true, place, lookup);
  if (top === canonical) return err({ kind: "worktree-top", given });
  const key = folded(relativeBelow(top ?? place.root, canonical), lookup.folding);
  return ok(there === undefined || there.folder ? { key } : { key, identity: there.id, top: top ?? place.root });
}

/** The top of the innermost other worktree of this repository that holds `canonical` (or is it),
 * below the root: a folder whose `.git` names the common dir (the main checkout) or a folder of its
 * `worktrees/` (a linked one). Its files are keyed from that top, as every worktree keys its own:
 * one file, one key, from whichever worktree it is named. A `.git` of another repository (a
 * submodule, a clone kept inside) is no worktree of this one: its files stay keyed from the root. */
function nestedTop(canonical: string, isFolder: boolean, place: PathPlace, lookup: PathLookup): string | undefined {
  const linked = `${place.common}/worktrees`;
  // A file has no `.git` below it: asking would cost a thrown ENOTDIR for every claim of a file.
  let folder = isFolder ? canonical : canonical.slice(0, canonical.lastIndexOf("/"));
  // Bounded by the path's depth below the root, itself under pathSegmentsMax.
  while (folder.length > place.root.length && isWithin(place.root, folder)) {
    const gitDir = lookup.gitDirOf(folder);
    if (gitDir !== undefined && (gitDir === place.common || gitDir.slice(0, gitDir.lastIndexOf("/")) === linked)) {
      return folder;
    }
    folder = folder.slice(0, folder.lastIndexOf("/"));
  }
  return undefined;
}

/** A key as the file system compares names: lower case and composed where it folds case (the
 * spelling of a file not made yet must meet the one it will have), composed where it only
 * normalizes, and as it is, byte for byte, where names are exact (Linux). */
function folded(key: string, folding: NameFolding): string {
  if (folding.caseFolds) return key.normalize("NFC").toLowerCase().normalize("NFC");
  return folding.normalizes ? key.normalize("NFC") : key;
}

/** `given` (absolute) read through the session's spelling: the canonical folder in place of the
 * spelled one it starts with (the spelled folder leads there). The rest is kept as written, so its
 * links and ".." resolve as the kernel would. */
function respelled(given: string, spelled: PathPlace["spelled"]): string {
  if (spelled === undefined) return given;
  if (given === spelled.path) return spelled.canonical;
  return given.startsWith(`${spelled.path}/`) ? `${spelled.canonical}${given.slice(spelled.path.length)}` : given;
}

/** Every path of a call resolved, duplicates dropped, in the order given; the first refusal wins
 * (all or nothing: a call with one bad path does nothing). */
export function resolveClaimTargets(
  given: readonly string[],
  place: PathPlace,
  lookup: PathLookup,
): Result<ClaimTarget[], PathError> {
  const targets: ClaimTarget[] = [];
  for (const path of given) {
    const target = resolveClaimTarget(path, place, lookup);
    if (target.isErr()) return err(target.error);
    if (!targets.some((t) => t.key === target.value.key)) targets.push(target.value);
  }
  return ok(targets);
}

/** The keys alone (a message's paths). */
export function resolveClaimPaths(
  given: readonly string[],
  place: PathPlace,
  lookup: PathLookup,
): Result<string[], PathError> {
  return resolveClaimTargets(given, place, lookup).map((targets) => targets.map((target) => target.key));
}

/** Whether two claim keys collide: the same path, or one a directory prefix of the other. */
export function keysConflict(a: string, b: string): boolean {
  return a === b || below(a, b) || below(b, a);
}

const slash = 47;

/** `inner` is a path under the folder `outer`; no string is made (a check compares every claim). */
function below(inner: string, outer: string): boolean {
  return inner.length > outer.length && inner.charCodeAt(outer.length) === slash && inner.startsWith(outer);
}
