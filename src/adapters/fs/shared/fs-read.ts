// The bounded read of one folder entry that may be hostile: never follows a link, never blocks on a
// FIFO, never reads past a bound, and the fstat of the open file decides what it is.
import { err, ok, type Result } from "neverthrow";
import { decodeUtf8 } from "../../../domain/shared/text/utf8.js";
import type { SetAsideReason } from "../../../ports/shared/set-aside-reason.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, ioError } from "./fs-errors.js";
import type { FsLike, FsStats } from "./fs-like.js";

/** What reading one folder entry found. */
type ReadOutcome = { kind: "text"; text: string } | { kind: "set-aside"; reason: SetAsideReason } | { kind: "gone" };

function setAsideReasonOf(stats: FsStats, bytesMax: number, ownerUid: number | undefined): SetAsideReason | undefined {
  if (stats.isSymbolicLink()) return "symlink";
  if (!stats.isFile()) return "not-a-file";
  if (ownerUid !== undefined && stats.uid !== ownerUid) return "foreign-owner";
  if (stats.size > bytesMax) return "too-big";
  return undefined;
}

/** Reads a regular file of at most `bytesMax` bytes. A link, a folder, a FIFO, a socket or a bigger
 * file is reported, not read: the open never follows a link (O_NOFOLLOW) nor waits for a FIFO's
 * writer (O_NONBLOCK), and the fstat of the open file decides, so nothing can be swapped in between. */
export function readEntry(fs: FsLike, path: string, bytesMax: number): Result<ReadOutcome, StoreError> {
  return readEntryOf(fs, path, bytesMax, undefined);
}

/** readEntry, and the file must be this user's (`uid`): one another user owns is set aside unread
 * ("foreign-owner"), since that user could have written anything in it. The fstat decides, as ever. */
export function readOwnEntry(fs: FsLike, path: string, bytesMax: number, uid: number): Result<ReadOutcome, StoreError> {
  return readEntryOf(fs, path, bytesMax, uid);
}

function readEntryOf(
  fs: FsLike,
  path: string,
  bytesMax: number,
  ownerUid: number | undefined,
): Result<ReadOutcome, StoreError> {
  // Plain try/catch, not attempt(): every claim of a delivery reads one entry here.
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = fs.constants;
  let fd: number;
  try {
    fd = fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (thrown) {
    return unopened(fs, path, ownerUid, ioError("open", path, thrown));
  }
  const outcome = readOpen(fs, fd, path, bytesMax, ownerUid);
  try {
    fs.closeSync(fd);
  } catch (thrown) {
    const closeFailed = ioError("close", path, thrown);
    return outcome.isErr() ? outcome : err(closeFailed);
  }
  return outcome;
}

/** Why an entry could not be opened, when that is a fact about the entry rather than a failure. */
function unopened(
  fs: FsLike,
  path: string,
  ownerUid: number | undefined,
  error: StoreError,
): Result<ReadOutcome, StoreError> {
  const code = error.kind === "io" ? error.code : undefined;
  if (code === "ENOENT") return ok({ kind: "gone" });
  // ELOOP on Linux and macOS, EMLINK on FreeBSD: a symlink.
  if (code === "ELOOP" || code === "EMLINK") return ok({ kind: "set-aside", reason: "symlink" });
  // A socket cannot be opened (ENXIO on Linux, EOPNOTSUPP on macOS).
  if (code === "ENXIO" || code === "EOPNOTSUPP") return ok({ kind: "set-aside", reason: "not-a-file" });
  // Another user's file this user may not read (0600): theirs, whatever it holds. Judged only once
  // the open failed, so a readable file still costs no lstat.
  if (ownerUid !== undefined && code === "EACCES" && isForeign(fs, path, ownerUid)) {
    return ok({ kind: "set-aside", reason: "foreign-owner" });
  }
  return err(error);
}

/** readOwnEntry on a file already open (the fstat of `fd` decides). */
export function readOpenEntry(
  fs: FsLike,
  fd: number,
  path: string,
  bytesMax: number,
  uid: number,
): Result<ReadOutcome, StoreError> {
  return readOpen(fs, fd, path, bytesMax, uid);
}

function readOpen(
  fs: FsLike,
  fd: number,
  path: string,
  bytesMax: number,
  ownerUid: number | undefined,
): Result<ReadOutcome, StoreError> {
  let stats: FsStats;
  try {
    stats = fs.fstatSync(fd);
  } catch (thrown) {
    return err(ioError("fstat", path, thrown));
  }
  const late = setAsideReasonOf(stats, bytesMax, ownerUid);
  if (late !== undefined) return ok({ kind: "set-aside", reason: late });
  return readAll(fs, fd, path, stats.size, bytesMax);
}

function isForeign(fs: FsLike, path: string, uid: number): boolean {
  const seen = attempt("lstat", path, () => fs.lstatSync(path));
  return seen.isOk() && seen.value.uid !== uid;
}

/** The buffer every read of a small entry fills: reads are synchronous and decode their text before
 * they return, so no two share it. A new buffer per read (a zeroed backing store each time) was a
 * measurable part of a delivery. */
const scratch = new Uint8Array(64 * 1024);

// Sized from fstat, grown once to the bound if the file grew meanwhile; one byte past the bound tells "too big".
function readAll(
  fs: FsLike,
  fd: number,
  path: string,
  sizeHint: number,
  bytesMax: number,
): Result<ReadOutcome, StoreError> {
  const first = Math.min(sizeHint, bytesMax) + 1;
  let buffer = first <= scratch.length ? scratch.subarray(0, first) : new Uint8Array(first);
  let filled = 0;
  // Each pass reads at least one byte or ends, so bytesMax + 2 passes always suffice.
  for (let pass = 0; pass <= bytesMax + 1; pass++) {
    if (filled === buffer.length) {
      if (filled > bytesMax) return ok({ kind: "set-aside", reason: "too-big" });
      const bigger = new Uint8Array(bytesMax + 1);
      bigger.set(buffer);
      buffer = bigger;
    }
    let read: number;
    try {
      read = fs.readSync(fd, buffer, filled, buffer.length - filled, null);
    } catch (thrown) {
      return err(ioError("read", path, thrown));
    }
    filled += read;
    // A regular file on a local file system reads short only at its end: no read to confirm it.
    if (read === 0 || filled < buffer.length) {
      return ok({ kind: "text", text: decodeUtf8(buffer.subarray(0, filled)) });
    }
  }
  throw new Error("readAll: read loop exceeded its bound");
}
