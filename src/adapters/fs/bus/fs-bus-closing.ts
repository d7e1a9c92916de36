// Closing the bus again after one of its folders was found open to other users (a `chmod -R` by
// mistake): every folder is closed, and what other users put in the ones that were open is set
// aside before anything lists it. Rare, so the normal paths stay one listing and no lstat a claim.
import { err, ok, type Result } from "neverthrow";
import {
  asideListedMax,
  claimsListedMax,
  inboxEntriesMax,
  inboxesListedMax,
  offersListedMax,
  recordsListedMax,
  tmpSweepEntriesMax,
} from "../../../domain/bus/limits.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { lstatIfThere, unlinkIfThere } from "../shared/fs-leftovers.js";
import type { FsStats } from "../shared/fs-like.js";
import { checkRootPath, openToOthers, permissionsOf } from "../shared/fs-path-safety.js";
import { asideFolderName } from "./fs-bus-aside.js";
import { closeFolder, type FsBusContext, folderPath, scanFolder, sharedBits, tmpName } from "./fs-bus-folders.js";

const ownFileMode = 0o600;
/** What another user left in a bus folder is renamed into tmp/ under this prefix: nothing reads
 * tmp/, its sweep removes it by age, and it is never taken for an inbox a prune moved there. */
const setAsidePrefix = "foreign";

/** What one closing of the bus did. */
interface Closing {
  folders: number;
  setAside: number;
}

/** A bus folder was found open to others, who may have added entries to it (a forged claim, record
 * or message) or, without the sticky bit, removed some. Every bus folder is closed, top down (a
 * folder is changed only once the one holding it is closed, so nobody can swap it meanwhile), and
 * each one that was open is searched, one lstat an entry: what another user owns is set aside
 * before anything lists it. Rare, so the normal paths stay one listing. The store that found it
 * tells the person; the folders are closed after, so no other store does. */
export function closeBus(disk: FsBusContext, path: string, stats: FsStats): Result<void, StoreError> {
  const closing: Closing = { folders: 0, setAside: 0 };
  const inbox = folderPath(disk, "inbox");
  const tops: [string, number][] = [
    [disk.root, tmpSweepEntriesMax],
    [folderPath(disk, "sessions"), recordsListedMax],
    [folderPath(disk, "claims"), claimsListedMax],
    [folderPath(disk, "offers"), offersListedMax],
    [folderPath(disk, "tmp"), tmpSweepEntriesMax],
    [inbox, inboxesListedMax],
  ];
  for (const [folder, entriesMax] of tops) {
    const done = closeAndSearch(disk, folder, entriesMax, closing);
    if (done.isErr()) return err(done.error);
  }
  const inboxes: string[] = [];
  const listed = scanFolder(disk.fs, inbox, inboxesListedMax, (entry) => {
    if (entry.isDirectory()) inboxes.push(`${inbox}/${entry.name}`);
  });
  if (listed.isErr() && !failedWith(listed, "ENOENT")) return err(listed.error);
  for (const folder of inboxes) {
    // An inbox, then the messages its reads set aside (put back into it later).
    const done = closeAndSearch(disk, folder, inboxEntriesMax, closing).andThen(() =>
      closeAndSearch(disk, `${folder}/${asideFolderName}`, asideListedMax, closing),
    );
    if (done.isErr()) return err(done.error);
  }
  if (closing.folders > 0) {
    disk.warn({ kind: "bus-opened", path, mode: permissionsOf(stats), ...closing, ancestor: openAncestor(disk) });
  }
  return ok(undefined);
}

/** A folder above the bus folder that others may write: the walk from `/` that opening made, again. */
function openAncestor(disk: FsBusContext): { path: string; mode: number } | undefined {
  const walked = checkRootPath(disk.fs, disk.root, disk.uid);
  return walked.isErr() && walked.error.kind === "open-ancestor"
    ? { path: walked.error.path, mode: walked.error.mode }
    : undefined;
}

function closeAndSearch(
  disk: FsBusContext,
  folder: string,
  entriesMax: number,
  closing: Closing,
): Result<void, StoreError> {
  const seen = lstatIfThere(disk.fs, folder);
  if (seen.isErr()) return err(seen.error);
  const stats = seen.value;
  // Missing, not a folder or another user's: left to the checks that refuse it.
  if (stats === undefined || !stats.isDirectory() || stats.uid !== disk.uid) return ok(undefined);
  if ((stats.mode & sharedBits) === 0) return ok(undefined);
  const closed = closeFolder(disk, folder);
  if (closed.isErr() || !closed.value || !openToOthers(stats)) return closed.map(() => undefined);
  closing.folders++;
  return setAsideForeign(disk, folder, entriesMax, closing);
}

/** One lstat per entry of a folder just closed: another user's entry is renamed into tmp/ (a file
 * that cannot be moved is removed); a file of this user's that others may write is closed. */
function setAsideForeign(
  disk: FsBusContext,
  folder: string,
  entriesMax: number,
  closing: Closing,
): Result<void, StoreError> {
  const names: string[] = [];
  const scanned = scanFolder(disk.fs, folder, entriesMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  const inTmp = folder === folderPath(disk, "tmp");
  for (const name of names) {
    if (inTmp && name.startsWith(`${setAsidePrefix}~`)) continue;
    const path = `${folder}/${name}`;
    const seen = lstatIfThere(disk.fs, path);
    if (seen.isErr()) return err(seen.error);
    const stats = seen.value;
    if (stats === undefined) continue;
    if (stats.uid !== disk.uid) {
      const moved = setAside(disk, path, stats);
      if (moved.isErr()) return err(moved.error);
      if (moved.value) closing.setAside++;
    } else if (stats.isFile() && (stats.mode & sharedBits) !== 0) {
      // The folder is closed now: nobody else can swap this name for a link meanwhile.
      const closed = attempt("chmod", path, () => disk.fs.chmodSync(path, ownFileMode));
      if (closed.isErr() && !failedWith(closed, "ENOENT")) return err(closed.error);
    }
  }
  return ok(undefined);
}

/** Renamed into tmp/ (removed when it cannot be moved). A folder stays where it is: another
 * user's folder where a bus folder should be is refused, as it always was, and anywhere else it
 * is no claim, record or message (none of them is a folder). */
function setAside(disk: FsBusContext, path: string, stats: FsStats): Result<boolean, StoreError> {
  if (stats.isDirectory()) return ok(false);
  const moved = attempt("rename", path, () => disk.fs.renameSync(path, tmpName(disk, setAsidePrefix)));
  // Not moved (tmp/ missing, say): removed instead; one gone meanwhile counts as neither.
  return moved.isOk() ? ok(true) : unlinkIfThere(disk.fs, path);
}
