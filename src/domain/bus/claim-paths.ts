// A path a caller names (to claim, release, or mention in a message) made into a claim key: the
// repository-relative posix path of its real target (A22-A25, A42, A43). Pure: the caller supplies
// realpath, which answers undefined for a path that does not exist.
import { err, ok, type Result } from "neverthrow";
import { pathCharsMax, pathSegmentsMax } from "./limits.js";
import { isWithin, joinLexical, normalizeAbsolute, relativeBelow } from "./posix-path.js";

export type PathError =
  | { kind: "empty-path" }
  | { kind: "path-too-long"; given: string; charsMax: number }
  /** It resolves to the repository itself: a claim on the root would own every file in it. */
  | { kind: "repository-root"; given: string }
  | { kind: "outside-repository"; given: string };

/** Where paths resolve from and what keys are relative to (both canonical), and the session's own
 * spelling of it when its cwd came through a link. */
interface PathPlace {
  root: string;
  cwd: string;
  spelled?: { path: string; canonical: string } | undefined;
}

export type Realpath = (path: string) => string | undefined;

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

/** The claim key of `given`, resolved against the cwd, or why it has none. */
export function resolveClaimPath(given: string, place: PathPlace, realpath: Realpath): Result<string, PathError> {
  if (given.trim() === "") return err({ kind: "empty-path" });
  if (given.length > pathCharsMax || given.split("/").length > pathSegmentsMax) {
    return err({ kind: "path-too-long", given, charsMax: pathCharsMax });
  }
  // An absolute path outside is refused before any link is followed (A23), unless it is written
  // through the session's own spelling of this place; the root is not: the re-keying below refuses
  // it with the sentence that says what happened.
  const path = given.startsWith("/") ? respelled(given, place.spelled) : given;
  if (path.startsWith("/") && !isWithin(place.root, normalizeAbsolute(path))) {
    return err({ kind: "outside-repository", given });
  }
  const absolute = path.startsWith("/") ? path : `${place.cwd}/${path}`;
  const canonical = canonicalize(absolute, realpath);
  if (canonical === place.root) return err({ kind: "repository-root", given });
  if (!isWithin(place.root, canonical)) return err({ kind: "outside-repository", given });
  return ok(relativeBelow(place.root, canonical));
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
export function resolveClaimPaths(
  given: readonly string[],
  place: PathPlace,
  realpath: Realpath,
): Result<string[], PathError> {
  const keys: string[] = [];
  for (const path of given) {
    const key = resolveClaimPath(path, place, realpath);
    if (key.isErr()) return err(key.error);
    if (!keys.includes(key.value)) keys.push(key.value);
  }
  return ok(keys);
}

/** Whether two claim keys collide: the same path, or one a directory prefix of the other. */
export function keysConflict(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}
