// The bus folder's paths and folder checks. An id becomes a path segment only here, after validation,
// and every folder is lstat-checked (a real folder, this user's) before a path goes through it: a
// folder swapped for a link is refused, never followed out of the bus folder. A folder of this
// user's found open to others is closed again, and what other users put in it is set aside.
import { err, ok, type Result } from "neverthrow";
import type { ClaimName } from "../../../domain/bus/bus-files.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import { dotEntriesListedMax, wholeListingFolderBytesMax } from "../../../domain/bus/limits.js";
import type { BusWarning } from "../../../ports/bus/bus-host.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { checkFolder, ensureFolder } from "../shared/fs-files.js";
import type { FsDirent, FsLike, FsStats } from "../shared/fs-like.js";
import { openToOthers, ownFolder, permissionsOf } from "../shared/fs-path-safety.js";

export interface FsBusContext {
  fs: FsLike;
  /** The bus folder of one repository, without a trailing slash (its real path once opened). */
  root: string;
  /** This user: the owner of every folder in the bus folder. */
  uid: number;
  /** Unique temp names. */
  entropy: Entropy;
  /** Claim names decoded before (a name is never reused, so what it decodes to never changes): a
   * claim lists claims/ twice, and decoding every name again was most of a listing's cost. */
  decodedClaims: Map<string, ClaimName | undefined>;
  /** What the store did on its own that the person must hear of: bus folders found open, closed. */
  warn: (warning: BusWarning) => void;
  /** Closes every bus folder and sets aside what other users put in them (fs-bus-closing.ts): called
   * when `path` was found open to others, with the stats it was found with. */
  closeBus: (path: string, stats: FsStats) => Result<void, StoreError>;
}

/** Every bus folder: this user's alone, and sticky, so that a later `chmod -R a+rwX` or `go+w` made
 * by mistake (symbolic modes keep the bit) still lets no other user remove or rename what is in it:
 * they can only add entries, which are set aside once the store finds the folder open. */
const busFolderMode = 0o1700;
/** Any permission for group or others. */
export const sharedBits = 0o077;

type BusFolder = "sessions" | "inbox" | "claims" | "offers" | "tmp";
export const busFolders: readonly BusFolder[] = ["sessions", "inbox", "claims", "offers", "tmp"];

export function folderPath(disk: FsBusContext, folder: BusFolder): string {
  return `${disk.root}/${folder}`;
}

/** Ids are checked by the codecs, but a string that reaches a path is checked again: a bad one is a bug. */
function assertBusId(id: string): void {
  if (!isBusId(id)) throw new Error(`not a bus id: ${JSON.stringify(id)}`);
}

export function inboxFolder(disk: FsBusContext, id: string): string {
  assertBusId(id);
  return `${folderPath(disk, "inbox")}/${id}`;
}

export function recordPath(disk: FsBusContext, id: string): string {
  assertBusId(id);
  return `${folderPath(disk, "sessions")}/${id}.json`;
}

/** A fresh name in tmp/: `<what>~<uuid>` (plus a suffix), unique per call. */
export function tmpName(disk: FsBusContext, what: string, suffix = ""): string {
  return `${folderPath(disk, "tmp")}/${what}~${disk.entropy.uuid()}${suffix}`;
}

/** The folder is a real folder of this user's (ENOENT when missing), closed to others: the stats
 * are those of the first lstat (a folder found open is closed before this returns). */
function checkOwn(disk: FsBusContext, path: string): Result<FsStats, StoreError> {
  return checkFolder(disk.fs, path)
    .andThen((stats) => ownFolder(path, stats, disk.uid))
    .andThen((stats) => keptClosed(disk, path, stats));
}

/** Like checkOwn, and a missing folder is made (busFolderMode). */
export function ensureOwn(disk: FsBusContext, path: string): Result<FsStats, StoreError> {
  const seen = checkOwn(disk, path);
  if (!failedWith(seen, "ENOENT")) return seen;
  return ensureFolder(disk.fs, path)
    .andThen((stats) => ownFolder(path, stats, disk.uid))
    .andThen((stats) =>
      permissionsOf(stats) === busFolderMode ? ok(stats) : closeFolder(disk, path).map(() => stats),
    );
}

/** checkOwn where a missing folder is an empty one: `false` when it is not there. */
export function folderThere(disk: FsBusContext, path: string): Result<boolean, StoreError> {
  const seen = checkOwn(disk, path);
  if (failedWith(seen, "ENOENT")) return ok(false);
  return seen.map(() => true);
}

/** folderThere with the stats it judged: undefined when the folder is not there. */
export function ownFolderStats(disk: FsBusContext, path: string): Result<FsStats | undefined, StoreError> {
  const seen = checkOwn(disk, path);
  return failedWith(seen, "ENOENT") ? ok(undefined) : seen;
}

/** Visits a folder's entries one at a time, in the directory's order, at most `entriesMax`; dot-files
 * are never visited as entries (no reader here takes one for data) and never count toward the bound:
 * they are counted apart, up to dotEntriesListedMax, and handed to `visitDot` (the prune's). Streamed,
 * so a huge folder costs at most the bounds in memory. Returns whether entries were left unread. */
export function scanFolder(
  fs: FsLike,
  path: string,
  entriesMax: number,
  visit: (entry: FsDirent) => void,
  visitDot?: (entry: FsDirent) => void,
  folderBytes?: number,
): Result<boolean, StoreError> {
  const whole = folderBytes !== undefined && folderBytes <= wholeListingFolderBytesMax;
  const opened = whole ? readWhole(fs, path) : attempt("opendir", path, () => fs.opendirSync(path));
  if (opened.isErr()) return err(opened.error);
  const dir = opened.value;
  const scanned = attempt("readdir", path, () => {
    let dots = 0;
    for (let seen = 0; ; ) {
      const entry = dir.readSync();
      if (entry === null) return false;
      if (entry.name.startsWith(".")) {
        if (++dots > dotEntriesListedMax) return true;
        visitDot?.(entry);
        continue;
      }
      if (seen >= entriesMax) return true;
      seen++;
      visit(entry);
    }
  });
  // A failed close changes nothing about what was read.
  attempt("closedir", path, () => dir.closeSync());
  return scanned;
}

/** A folder small by its size is read in one readdir: Node's opendir costs a setup and a call per
 * entry of its own, more than the system calls when the folder holds a hundred names. Its size bounds
 * its entries where a file system grows a folder with them (ext4 at least 12 bytes a name, tmpfs 20,
 * btrfs twice the name's bytes), so the one read is bounded too. */
export function readWhole(fs: FsLike, path: string): Result<Dir, StoreError> {
  return attempt("readdir", path, () => fs.readdirSync(path, { withFileTypes: true })).map((entries): Dir => {
    let next = 0;
    return { readSync: () => entries[next++] ?? null, closeSync: () => undefined };
  });
}

type Dir = ReturnType<FsLike["opendirSync"]>;

/** A folder others may only read is closed quietly (nobody else could change what is in it); one
 * they may write has the whole bus closed and searched. A judgement of stats already read: while the
 * folders are closed, this check costs no syscall. */
function keptClosed(disk: FsBusContext, path: string, stats: FsStats): Result<FsStats, StoreError> {
  if ((stats.mode & sharedBits) === 0) return ok(stats);
  const closed = openToOthers(stats) ? disk.closeBus(path, stats) : closeFolder(disk, path).map(() => undefined);
  return closed.map(() => stats);
}

/** chmod busFolderMode through a descriptor opened without following links, after its fstat said
 * it is a real folder of this user's: what is changed is what was judged, never a link's target.
 * False when the folder is gone or is not this user's now (the next check refuses it). */
export function closeFolder(disk: FsBusContext, path: string): Result<boolean, StoreError> {
  const { O_RDONLY, O_DIRECTORY, O_NOFOLLOW, O_NONBLOCK } = disk.fs.constants;
  const flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK;
  const opened = attempt("open", path, () => disk.fs.openSync(path, flags));
  if (failedWith(opened, "ENOENT")) return ok(false);
  if (opened.isErr()) return err(opened.error);
  const fd = opened.value;
  const changed = attempt("fstat", path, () => disk.fs.fstatSync(fd)).andThen((stats) =>
    stats.isDirectory() && stats.uid === disk.uid
      ? attempt("chmod", path, () => disk.fs.fchmodSync(fd, busFolderMode)).map(() => true)
      : ok(false),
  );
  attempt("close", path, () => disk.fs.closeSync(fd));
  return changed;
}
