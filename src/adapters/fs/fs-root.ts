// Opening the mail root, and telling later that it is still the folder that was opened.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../ports/mail-store.js";
import { checkOwnFolder, runningFolderName, type StoreContext } from "./fs-boxes.js";
import { attempt, failedWith } from "./fs-errors.js";
import { folderMode } from "./fs-files.js";
import { checkRootPath } from "./fs-path-safety.js";

/** The path is judged before anything is made, so that mkdir never creates a folder through a path
 * another user controls, and again once made. chmod every time: an existing root may have been
 * created open to others; it comes after the walk because chmod follows links, a linked root is
 * refused rather than repaired, and a root another user owns is never changed (as root it could be). */
export function openRoot(ctx: StoreContext): Result<void, StoreError> {
  let walked = checkRootPath(ctx.fs, ctx.root, ctx.uid);
  if (failedWith(walked, "ENOENT")) {
    const made = attempt("mkdir", ctx.root, () => ctx.fs.mkdirSync(ctx.root, { mode: folderMode, recursive: true }));
    if (made.isErr()) return err(made.error);
    walked = checkRootPath(ctx.fs, ctx.root, ctx.uid);
  }
  if (walked.isErr()) return err(walked.error);
  // running/ left by another user (from a time the root was open) is refused now, not at each write.
  const running = checkOwnFolder(ctx, `${ctx.root}/${runningFolderName}`);
  if (running.isErr() && !failedWith(running, "ENOENT")) return err(running.error);
  const chmodded = attempt("chmod", ctx.root, () => ctx.fs.chmodSync(ctx.root, folderMode));
  if (chmodded.isErr()) return err(chmodded.error);
  ctx.rootIdentity = { dev: walked.value.dev, ino: walked.value.ino };
  return ok(undefined);
}

/** One lstat: the root at its path is the folder openRoot judged, still this user's. Moved, removed
 * or replaced (through any folder above it, since lstat follows the links on the way) it is not. */
export function checkRoot(ctx: StoreContext): Result<void, StoreError> {
  const opened = ctx.rootIdentity;
  if (opened === undefined) throw new Error("checkRoot before a successful openRoot");
  const seen = attempt("lstat", ctx.root, () => ctx.fs.lstatSync(ctx.root));
  if (failedWith(seen, "ENOENT") || failedWith(seen, "ENOTDIR")) {
    return err({ kind: "root-replaced", path: ctx.root, uid: undefined });
  }
  if (seen.isErr()) return err(seen.error);
  const now = seen.value;
  const same = now.dev === opened.dev && now.ino === opened.ino && now.isDirectory() && !now.isSymbolicLink();
  if (!same) return err({ kind: "root-replaced", path: ctx.root, uid: now.uid });
  if (now.uid !== ctx.uid) return err({ kind: "foreign-owner", path: ctx.root, uid: now.uid, place: "mail-folder" });
  return ok(undefined);
}
