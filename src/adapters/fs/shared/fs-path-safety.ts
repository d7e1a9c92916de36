// The mail root is only as safe as the folders above it: whoever may write one of them can rename
// the root away and put theirs in its place, then read what this user's sessions send and forge
// what they receive. So, as OpenSSH's StrictModes (secure_path) and qmail-local do, the path is
// walked from `/`, and links are followed here one at a time, so that where each link sits and
// where it leads are both judged (a link in a folder someone else may write is as unsafe as the folder).
import { err, ok, type Result } from "neverthrow";
import { rootPathLinksMax, rootPathSegmentsMax } from "../../../domain/shared/limits.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, notAFolder } from "./fs-errors.js";
import type { FsLike, FsStats } from "./fs-like.js";

const superuser = 0;
const writableByGroupOrOthers = 0o022;
const stickyBit = 0o1000;
const permissionBits = 0o7777;

/** Group or others may write the folder: whoever they are could add entries to it, and remove or
 * rename what is in it unless it is sticky. */
export function openToOthers(stats: FsStats): boolean {
  return (stats.mode & writableByGroupOrOthers) !== 0;
}

/** The mode's permission bits (sticky and set-id bits too), as `chmod` takes them. */
export function permissionsOf(stats: FsStats): number {
  return stats.mode & permissionBits;
}

/** A folder above the root: root's or this user's, and nobody else may write it. A root-owned
 * sticky folder (/tmp) is the exception: in it nobody may rename or remove what another user owns. */
function judgeAncestor(path: string, stats: FsStats, uid: number): StoreError | undefined {
  if (stats.uid !== superuser && stats.uid !== uid) {
    return { kind: "foreign-owner", path, uid: stats.uid, place: "ancestor" };
  }
  const shared = stats.uid === superuser && (stats.mode & stickyBit) !== 0;
  if (openToOthers(stats) && !shared) {
    return { kind: "open-ancestor", path, mode: permissionsOf(stats), uid: stats.uid, yours: stats.uid === uid };
  }
  return undefined;
}

/** A folder in the mail root must be this user's: one another user owns (left from a time the root
 * was open to others, or made by a session running as root) can be changed under this session, and
 * a chmod of it would not work. A session running as root accepts no folder another user owns. */
export function ownFolder(path: string, stats: FsStats, uid: number): Result<FsStats, StoreError> {
  return stats.uid === uid ? ok(stats) : err({ kind: "foreign-owner", path, uid: stats.uid, place: "mail-folder" });
}

function segments(path: string): string[] {
  return path.split("/").filter((segment) => segment !== "" && segment !== ".");
}

function tooManyLinks(path: string): StoreError {
  return { kind: "io", op: "lstat", path, code: "ELOOP", message: `too many links on the way to ${path}` };
}

/** The root's lstat, once every folder and link from `/` to it was judged safe, the root itself is a
 * real folder (a link there is refused, never followed) and it is this user's. A missing segment
 * fails with ENOENT after everything above it was judged, so a caller may create the rest. */
export function checkRootPath(
  fs: FsLike,
  root: string,
  uid: number,
  resolved?: { path: string },
): Result<FsStats, StoreError> {
  // A relative HOME makes a relative root: there is no way from `/` to judge, so it is refused.
  if (!root.startsWith("/")) {
    return err({
      kind: "io",
      op: "lstat",
      path: root,
      code: "EINVAL",
      message: `the mail root ${root} is not absolute`,
    });
  }
  const top = attempt("lstat", "/", () => fs.lstatSync("/"));
  if (top.isErr()) return err(top.error);
  const topProblem = judgeAncestor("/", top.value, uid);
  if (topProblem !== undefined) return err(topProblem);
  // `at` is the folder reached so far, links resolved ("" is "/"); `pending` what is left to walk.
  let at = "";
  const pending = segments(root);
  let links = 0;
  for (let step = 0; step < rootPathSegmentsMax; step++) {
    const name = pending.shift();
    if (name === undefined) {
      // A path ending in "..".
      if (resolved !== undefined) resolved.path = at === "" ? "/" : at;
      return judgeRoot(fs, at === "" ? "/" : at, uid);
    }
    if (name === "..") {
      // `at` has no links in it, so its parent is the physical one, as the kernel resolves "..".
      at = at.slice(0, Math.max(0, at.lastIndexOf("/")));
      continue;
    }
    const path = `${at}/${name}`;
    const seen = attempt("lstat", path, () => fs.lstatSync(path));
    if (seen.isErr()) return err(seen.error);
    const stats = seen.value;
    // The root itself may be a link of this user's: followed, and what it leads to judged as the
    // root (a link another user owns, or one in a folder others may write, never is).
    if (pending.length === 0 && stats.isSymbolicLink() && stats.uid !== uid) {
      return err({ kind: "foreign-owner", path, uid: stats.uid, place: "root-link" });
    }
    const rootLink = pending.length === 0 && stats.isSymbolicLink();
    if (pending.length === 0 && !rootLink) {
      if (resolved !== undefined) resolved.path = path;
      return rootFolder(path, stats, uid);
    }
    if (stats.isSymbolicLink()) {
      // The folder holding the link was judged; the link must be root's or this user's too (in a
      // sticky folder its owner may replace it). Its target is walked from where the link sits.
      if (stats.uid !== superuser && stats.uid !== uid) {
        return err({ kind: "foreign-owner", path, uid: stats.uid, place: "link" });
      }
      links++;
      if (links > rootPathLinksMax) return err(tooManyLinks(root));
      const target = attempt("readlink", path, () => fs.readlinkSync(path));
      if (target.isErr()) return err(target.error);
      if (target.value.startsWith("/")) at = "";
      pending.unshift(...segments(target.value));
      continue;
    }
    // Not a folder: the next lstat fails with ENOTDIR, which says it best.
    const problem = stats.isDirectory() ? judgeAncestor(path, stats, uid) : undefined;
    if (problem !== undefined) return err(problem);
    at = path;
  }
  return err(tooManyLinks(root));
}

function judgeRoot(fs: FsLike, path: string, uid: number): Result<FsStats, StoreError> {
  return attempt("lstat", path, () => fs.lstatSync(path)).andThen((stats) => rootFolder(path, stats, uid));
}

function rootFolder(path: string, stats: FsStats, uid: number): Result<FsStats, StoreError> {
  if (!stats.isDirectory() || stats.isSymbolicLink()) return err(notAFolder(path));
  return ownFolder(path, stats, uid);
}
