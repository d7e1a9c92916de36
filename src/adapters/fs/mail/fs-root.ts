// Opening the mail root, and telling later that it is still the folder that was opened.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { folderMode } from "../shared/fs-files.js";
import { checkRootPath } from "../shared/fs-path-safety.js";
import { checkOwnFolder, type FsMailContext, runningFolderName } from "./fs-boxes.js";

/** The path is judged before anything is made, so that mkdir never creates a folder through a path
 * another user controls, and again once made. chmod every time: an existing root may have been
 * created open to others; it comes after the walk because chmod follows links (a root that is a link
 * of this user's tightens the folder it leads to), and a root another user owns is never changed
 * (as root it could be). */
export function openRoot(disk: FsMailContext): Result<void, StoreError> {
  // Opened again (a start retried), a linked root is judged again from its link.
  if (disk.rootLink !== undefined) disk.root = disk.rootLink.path;
  const real = { path: disk.root };
  let walked = checkRootPath(disk.fs, disk.root, disk.uid, real);
  const link = attempt("lstat", disk.root, () => disk.fs.lstatSync(disk.root));
  const linked = link.isOk() && link.value.isSymbolicLink();
  if (failedWith(walked, "ENOENT") && linked) return err(danglingRoot(disk));
  if (failedWith(walked, "ENOENT")) {
    const made = attempt("mkdir", disk.root, () => disk.fs.mkdirSync(disk.root, { mode: folderMode, recursive: true }));
    if (made.isErr()) return err(made.error);
    walked = checkRootPath(disk.fs, disk.root, disk.uid, real);
  }
  if (walked.isErr()) return err(walked.error);
  // A root that is a link of this user's is used by the folder it leads to from now on, so no
  // later path goes through the link; the link itself is checked at each poll (retargeted, it is
  // another root).
  const target = linked ? attempt("readlink", disk.root, () => disk.fs.readlinkSync(disk.root)) : undefined;
  if (target?.isOk() === true) {
    disk.rootLink = { path: disk.root, target: target.value };
    disk.root = real.path;
  }
  // running/ left by another user (from a time the root was open) is refused now, not at each write.
  const running = checkOwnFolder(disk, `${disk.root}/${runningFolderName}`);
  if (running.isErr() && !failedWith(running, "ENOENT")) return err(running.error);
  const chmodded = attempt("chmod", disk.root, () => disk.fs.chmodSync(disk.root, folderMode));
  if (chmodded.isErr()) return err(chmodded.error);
  disk.rootIdentity = { dev: walked.value.dev, ino: walked.value.ino };
  return ok(undefined);
}

function danglingRoot(disk: FsMailContext): StoreError {
  const target = attempt("readlink", disk.root, () => disk.fs.readlinkSync(disk.root));
  const to = target.isOk() ? target.value : "a folder that does not exist";
  return {
    kind: "io",
    op: "open",
    path: disk.root,
    code: "ENOENT",
    message: `the mail root ${disk.root} is a link to ${to}, which does not exist: create it (mkdir -m 700 ${to}) or remove the link`,
  };
}

/** One lstat: the root at its path is the folder openRoot judged, still this user's. Moved, removed
 * or replaced (through any folder above it, since lstat follows the links on the way) it is not. */
export function checkRoot(disk: FsMailContext): Result<void, StoreError> {
  const opened = disk.rootIdentity;
  if (opened === undefined) throw new Error("checkRoot before a successful openRoot");
  const link = disk.rootLink;
  if (link !== undefined) {
    // A link made anew may get the old one's inode: what it says is compared, not its identity.
    const now = attempt("readlink", link.path, () => disk.fs.readlinkSync(link.path));
    if (now.isErr() || now.value !== link.target)
      return err({ kind: "root-replaced", path: link.path, uid: undefined });
  }
  const seen = attempt("lstat", disk.root, () => disk.fs.lstatSync(disk.root));
  if (failedWith(seen, "ENOENT") || failedWith(seen, "ENOTDIR")) {
    return err({ kind: "root-replaced", path: disk.root, uid: undefined });
  }
  if (seen.isErr()) return err(seen.error);
  const now = seen.value;
  const same = now.dev === opened.dev && now.ino === opened.ino && now.isDirectory() && !now.isSymbolicLink();
  if (!same) return err({ kind: "root-replaced", path: disk.root, uid: now.uid });
  if (now.uid !== disk.uid) return err({ kind: "foreign-owner", path: disk.root, uid: now.uid, place: "mail-folder" });
  return ok(undefined);
}
