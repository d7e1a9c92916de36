// File and folder primitives of the stores: never follow a link, publish only by rename, list
// within bounds (reads of an entry are in fs-read.ts). Every errno comes back as a StoreError value.
import { err, ok, type Result } from "neverthrow";
import { encodeUtf8 } from "../../../domain/shared/text/utf8.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith, hasCode, ioError, notAFolder } from "./fs-errors.js";
import type { FsDirent, FsLike, FsStats } from "./fs-like.js";

export const folderMode = 0o700;
const fileMode = 0o600;
/** Longest folder entry name accepted from a journal (NAME_MAX on Linux and macOS). */
const entryNameCharsMax = 255;

/** A single path segment that may be mail: no `/`, no NUL, and no leading dot (dot-files are never mail). */
export function isEntryName(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= entryNameCharsMax &&
    !name.startsWith(".") &&
    !name.includes("/") &&
    !name.includes("\0")
  );
}

/** Names reach paths only after this check; a bad one here is a caller's bug. */
export function assertEntryName(name: string): void {
  if (!isEntryName(name)) throw new Error(`not a mail entry name: ${JSON.stringify(name)}`);
}

function realFolder(path: string, stats: FsStats): Result<FsStats, StoreError> {
  return stats.isDirectory() && !stats.isSymbolicLink() ? ok(stats) : err(notAFolder(path));
}

/** Whether something is at `path`, by one lstat: any answer but "not there" (ENOENT) is yes, so a
 * caller that acts on "there" lets the next call sort out what it is. */
export function mayBeThere(fs: FsLike, path: string): boolean {
  try {
    fs.lstatSync(path);
    return true;
  } catch (thrown) {
    return !hasCode(ioError("lstat", path, thrown), "ENOENT");
  }
}

/** The folder's lstat when it is a real folder (a link to one is refused). */
export function checkFolder(fs: FsLike, path: string): Result<FsStats, StoreError> {
  return attempt("lstat", path, () => fs.lstatSync(path)).andThen((stats) => realFolder(path, stats));
}

/** Like checkFolder, but creates a missing folder with mode 0700 whatever the umask. */
export function ensureFolder(fs: FsLike, path: string): Result<FsStats, StoreError> {
  const seen = checkFolder(fs, path);
  if (!failedWith(seen, "ENOENT")) return seen;
  const made = attempt("mkdir", path, () => fs.mkdirSync(path, { mode: folderMode }));
  // EEXIST: another session created it between our lstat and mkdir, which is fine.
  if (made.isErr() && !failedWith(made, "EEXIST")) return err(made.error);
  const created = checkFolder(fs, path);
  if (created.isErr() || (created.value.mode & 0o777) === folderMode) return created;
  return attempt("chmod", path, () => fs.chmodSync(path, folderMode)).andThen(() => checkFolder(fs, path));
}

/** A folder's entries sorted by name, at most `entriesMax` (readdir itself cannot stop early). */
export function listEntries(
  fs: FsLike,
  path: string,
  entriesMax: number,
): Result<{ entries: FsDirent[]; truncated: boolean }, StoreError> {
  return attempt("readdir", path, () => fs.readdirSync(path, { withFileTypes: true })).map((all) => {
    all.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { entries: all.slice(0, entriesMax), truncated: all.length > entriesMax };
  });
}

/** What a bounded listing of new/ found. */
interface NameListing {
  /** Names that may be mail, sorted, at most `namesMax`. */
  names: string[];
  /** The first `hiddenMax` entries that are never mail (dot-files, names that are not UTF-8). */
  hidden: string[];
  /** Every such entry seen, kept or not. */
  hiddenCount: number;
  /** More entries remain than were read. */
  truncated: boolean;
}

/** Reads a folder entry by entry and stops at its bounds: at `namesMax` names that may be mail, or
 * after `entriesMax` entries in all. Entries that are never mail are counted apart, so a folder
 * full of dot-files cannot fill the bound that real mail needs. Sorted only among what was read:
 * past the bound, the directory's own order decides what comes first. */
export function listMailNames(
  fs: FsLike,
  path: string,
  isMail: (name: string) => boolean,
  bounds: { namesMax: number; hiddenMax: number; entriesMax: number },
): Result<NameListing, StoreError> {
  const opened = attempt("opendir", path, () => fs.opendirSync(path));
  if (opened.isErr()) return err(opened.error);
  const dir = opened.value;
  const listing: NameListing = { names: [], hidden: [], hiddenCount: 0, truncated: false };
  const read = attempt("readdir", path, () => {
    for (let seen = 0; ; seen++) {
      const entry = dir.readSync();
      if (entry === null) return;
      if (seen >= bounds.entriesMax || listing.names.length >= bounds.namesMax) {
        listing.truncated = true;
        return;
      }
      if (isMail(entry.name)) listing.names.push(entry.name);
      else if (listing.hiddenCount++ < bounds.hiddenMax) listing.hidden.push(entry.name);
    }
  });
  attempt("closedir", path, () => dir.closeSync());
  if (read.isErr()) return err(read.error);
  listing.names.sort();
  return ok(listing);
}

/** Writes every byte, at the file position or, given `position`, from that offset on. */
export function writeAll(
  fs: FsLike,
  fd: number,
  path: string,
  bytes: Uint8Array,
  position: number | null = null,
): Result<void, StoreError> {
  let written = 0;
  // A short write is retried from where it stopped; a write of 0 bytes would loop forever, so it fails.
  for (let pass = 0; pass <= bytes.length && written < bytes.length; pass++) {
    let done: number;
    try {
      done = fs.writeSync(fd, bytes, written, bytes.length - written, position === null ? null : position + written);
    } catch (thrown) {
      return err(ioError("write", path, thrown));
    }
    if (done <= 0) return err({ kind: "io", op: "write", path, code: "EIO", message: "write made no progress" });
    written += done;
  }
  return ok(undefined);
}

/** Unlinks a file whose removal is cleanup after a failure: its own error would hide the first one. */
export function removeQuietly(fs: FsLike, path: string): void {
  attempt("unlink", path, () => fs.unlinkSync(path));
}

/** Makes a rename in `path` durable: fsync on the folder itself. */
function syncFolder(fs: FsLike, path: string): Result<void, StoreError> {
  const { O_RDONLY, O_DIRECTORY } = fs.constants;
  return attempt("open", path, () => fs.openSync(path, O_RDONLY | O_DIRECTORY)).andThen((fd) => {
    const synced = attempt("fsync", path, () => fs.fsyncSync(fd));
    const closed = attempt("close", path, () => fs.closeSync(fd));
    return synced.andThen(() => closed);
  });
}

interface AtomicWrite {
  tmpPath: string;
  finalPath: string;
  text: string | Uint8Array;
  /** fsync the file before the rename (and `syncFolder` after it). */
  durable: boolean;
  /** The folder of `finalPath`, fsynced after the rename when durable; undefined: skip. */
  syncFolder: string | undefined;
  /** A leftover at `tmpPath` is a crashed writer's and is replaced (only where one writer owns the name). */
  replaceLeftover: boolean;
}

function createExclusive(fs: FsLike, path: string, replaceLeftover: boolean): Result<number, StoreError> {
  const { O_CREAT, O_EXCL, O_WRONLY, O_NOFOLLOW } = fs.constants;
  const open = () => attempt("open", path, () => fs.openSync(path, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW, fileMode));
  const first = open();
  if (!replaceLeftover || !failedWith(first, "EEXIST")) return first;
  const removed = attempt("unlink", path, () => fs.unlinkSync(path));
  if (removed.isErr() && !failedWith(removed, "ENOENT")) return err(removed.error);
  return open();
}

/** What an atomic write did once the file was in place. */
interface Published {
  /** The folder fsync after the rename failed: the file is in place, but not yet durable. */
  unsynced: StoreError | undefined;
}

/** Exclusive create of the temp file, write, optional fsync, close, rename into place. Readers of
 * the final name never see a partial file; on any failure before the rename the temp file is
 * removed and nothing was published. A folder fsync that fails after the rename is no failure to
 * publish (the file is in place, and a retry would publish it twice): it comes back as `unsynced`. */
export function writeAtomic(fs: FsLike, w: AtomicWrite): Result<Published, StoreError> {
  const created = createExclusive(fs, w.tmpPath, w.replaceLeftover);
  if (created.isErr()) return err(created.error);
  const fd = created.value;
  const bytes = typeof w.text === "string" ? encodeUtf8(w.text) : w.text;
  const written = writeAll(fs, fd, w.tmpPath, bytes).andThen(() =>
    w.durable ? attempt("fsync", w.tmpPath, () => fs.fsyncSync(fd)) : ok(undefined),
  );
  const closed = attempt("close", w.tmpPath, () => fs.closeSync(fd));
  const published = written
    .andThen(() => closed)
    .andThen(() => attempt("rename", w.finalPath, () => fs.renameSync(w.tmpPath, w.finalPath)));
  if (published.isErr()) {
    removeQuietly(fs, w.tmpPath);
    return err(published.error);
  }
  const synced = w.durable && w.syncFolder !== undefined ? syncFolder(fs, w.syncFolder) : ok(undefined);
  return ok({ unsynced: synced.isErr() ? synced.error : undefined });
}
