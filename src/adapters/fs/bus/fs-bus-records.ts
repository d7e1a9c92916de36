// `sessions/<id>.json`: one record per joined session, published whole by a temp file renamed into
// place. The rename keeps the temp file's mtime, which is the heartbeat.
import { err, ok, type Result } from "neverthrow";
import type { SessionRecord } from "../../../domain/bus/bus-files.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import { recordBytesMax, recordsListedMax } from "../../../domain/bus/limits.js";
import { decodeSessionRecord, encodeSessionRecord } from "../../../domain/bus/records.js";
import type {
  RecordCheck,
  RecordListing,
  StoredRecord,
  TouchOutcome,
  Unreadable,
} from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { writeAtomic } from "../shared/fs-files.js";
import { lstatIfThere, unlinkIfThere } from "../shared/fs-leftovers.js";
import type { FsStats } from "../shared/fs-like.js";
import { readOpenEntry, readOwnEntry } from "../shared/fs-read.js";
import {
  ensureOwn,
  type FsBusContext,
  folderPath,
  folderThere,
  recordPath,
  scanFolder,
  tmpName,
} from "./fs-bus-folders.js";

const suffix = ".json";

type ReadOutcome = ReturnType<typeof readOwnEntry> extends Result<infer T, StoreError> ? T : never;

export function writeRecord(disk: FsBusContext, record: SessionRecord): Result<void, StoreError> {
  const text = encodeSessionRecord(record);
  return ensureOwn(disk, folderPath(disk, "sessions"))
    .andThen(() => ensureOwn(disk, folderPath(disk, "tmp")))
    .andThen(() =>
      writeAtomic(disk.fs, {
        tmpPath: tmpName(disk, `record~${record.id}`, suffix),
        finalPath: recordPath(disk, record.id),
        text,
        // A record is rewritten every heartbeat and means nothing after a reboot: no fsync.
        durable: false,
        syncFolder: undefined,
        replaceLeftover: false,
      }),
    )
    .map(() => undefined);
}

/** A record as read, or why it is not one (an Unreadable without its name and mtime yet). */
type RecordRead = { kind: "record"; record: SessionRecord } | { kind: "unreadable"; reason: Unreadable["reason"] };

function readRecordEntry(found: ReadOutcome, id: string): RecordRead | undefined {
  switch (found.kind) {
    case "gone":
      return undefined;
    case "set-aside":
      // A link, a folder, a FIFO or another user's file: none is a file of this bus's.
      return { kind: "unreadable", reason: found.reason === "too-big" ? "too-big" : "not-a-file" };
    case "text": {
      const decoded = decodeSessionRecord(found.text, id);
      if (decoded.isOk()) return { kind: "record", record: decoded.value };
      return { kind: "unreadable", reason: decoded.error.kind };
    }
    default: {
      const never: never = found;
      return never;
    }
  }
}

/** Read, then lstat for the heartbeat: a record replaced in between is judged by a heartbeat at
 * least as new as what was read. Undefined when the file is gone. */
function readAt(
  disk: FsBusContext,
  path: string,
  id: string,
): Result<(RecordRead & { mtimeMs: number }) | undefined, StoreError> {
  const read = readOwnEntry(disk.fs, path, recordBytesMax, disk.uid);
  if (read.isErr()) return err(read.error);
  const judged = readRecordEntry(read.value, id);
  if (judged === undefined) return ok(undefined);
  return lstatIfThere(disk.fs, path).map((stats) =>
    stats === undefined ? undefined : { ...judged, mtimeMs: stats.mtimeMs },
  );
}

export function readRecord(disk: FsBusContext, id: string): Result<StoredRecord | undefined, StoreError> {
  const path = recordPath(disk, id);
  const there = folderThere(disk, folderPath(disk, "sessions"));
  if (there.isErr() || !there.value) return there.map(() => undefined);
  return readAt(disk, path, id).map((found) =>
    found?.kind === "record" ? { record: found.record, heartbeatMs: found.mtimeMs } : undefined,
  );
}

/** Every record of sessions/ that reads, and every other file there named. Dot-files are skipped;
 * at most recordsListedMax entries are looked at, and `truncated` says when more were there. Every
 * record is read again each time: an inode number is reused once freed, so no cache by it is sound,
 * and a prune clears ended sessions' records at once (they are what would make the folder big). */
export function listRecords(disk: FsBusContext): Result<RecordListing, StoreError> {
  const folder = folderPath(disk, "sessions");
  const listing: RecordListing = { records: [], unreadable: [], truncated: false };
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => listing);
  const names: string[] = [];
  const scanned = scanFolder(disk.fs, folder, recordsListedMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  listing.truncated = scanned.value;
  names.sort();
  for (const name of names) {
    const path = `${folder}/${name}`;
    const id = name.endsWith(suffix) ? name.slice(0, -suffix.length) : "";
    if (!isBusId(id)) {
      const seen = lstatIfThere(disk.fs, path);
      if (seen.isErr()) return err(seen.error);
      if (seen.value !== undefined)
        listing.unreadable.push({ name, reason: "name-mismatch", mtimeMs: seen.value.mtimeMs });
      continue;
    }
    const found = readAt(disk, path, id);
    if (found.isErr()) return err(found.error);
    const item = found.value;
    if (item?.kind === "record") listing.records.push({ record: item.record, heartbeatMs: item.mtimeMs });
    else if (item !== undefined) listing.unreadable.push({ name, reason: item.reason, mtimeMs: item.mtimeMs });
  }
  return ok(listing);
}

/** Per store, per id: the file this store last found or made its own record, by its device, inode
 * and mtime. A record is replaced only by a rename (a new inode, a new mtime) and beaten only by a
 * touch (a new mtime), so while all three hold, the text read then is the text there now. */
const ownStamps = new WeakMap<FsBusContext, Map<string, { dev: number; ino: number; mtimeMs: number }>>();

function stampsOf(disk: FsBusContext): Map<string, { dev: number; ino: number; mtimeMs: number }> {
  let stamps = ownStamps.get(disk);
  if (stamps === undefined) {
    stamps = new Map();
    ownStamps.set(disk, stamps);
  }
  return stamps;
}

function sameStamp(a: { dev: number; ino: number; mtimeMs: number } | undefined, b: FsStats): boolean {
  return a !== undefined && a.dev === b.dev && a.ino === b.ino && a.mtimeMs === b.mtimeMs;
}

function isOwn(found: SessionRecord, own: SessionRecord): boolean {
  return found.joinToken === own.joinToken && found.pid === own.pid && found.started === own.started;
}

export function checkRecord(
  disk: FsBusContext,
  id: string,
  self: { pid: number; started: string | undefined },
): Result<RecordCheck, StoreError> {
  const path = recordPath(disk, id);
  const seen = lstatIfThere(disk.fs, path);
  if (seen.isErr()) return err(seen.error);
  const stamps = stampsOf(disk);
  if (seen.value !== undefined && sameStamp(stamps.get(id), seen.value)) return ok({ kind: "own" });
  return withRecordOpen(
    disk,
    id,
    (fd): Result<RecordCheck, StoreError> =>
      readOpenRecord(disk, fd, path, id).map((found): RecordCheck => {
        if (found === undefined) return missing;
        if (found.record.pid !== self.pid || found.record.started !== self.started) {
          return { kind: "changed", record: found.record };
        }
        stamps.set(id, { dev: found.stats.dev, ino: found.stats.ino, mtimeMs: found.stats.mtimeMs });
        return { kind: "own" };
      }),
  );
}

const missing = { kind: "missing" } as const;

/** Opens `id`'s record without following a link and hands the open file to `use`, closing it after;
 * a record (or a sessions/ folder) that is not there is missing. */
function withRecordOpen<T>(
  disk: FsBusContext,
  id: string,
  use: (fd: number) => Result<T, StoreError>,
): Result<T | typeof missing, StoreError> {
  const path = recordPath(disk, id);
  const there = folderThere(disk, folderPath(disk, "sessions"));
  if (there.isErr()) return err(there.error);
  if (!there.value) return ok(missing);
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = disk.fs.constants;
  const opened = attempt("open", path, () => disk.fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  if (failedWith(opened, "ENOENT")) return ok(missing);
  if (opened.isErr()) return err(opened.error);
  const fd = opened.value;
  const used = use(fd);
  attempt("close", path, () => disk.fs.closeSync(fd));
  return used;
}

/** The record in an open file, with the fstat taken before it was read (undefined: not a record). */
function readOpenRecord(
  disk: FsBusContext,
  fd: number,
  path: string,
  id: string,
): Result<{ record: SessionRecord; stats: FsStats } | undefined, StoreError> {
  const stats = attempt("fstat", path, () => disk.fs.fstatSync(fd));
  if (stats.isErr()) return err(stats.error);
  const read = readOpenEntry(disk.fs, fd, path, recordBytesMax, disk.uid);
  if (read.isErr()) return err(read.error);
  if (read.value.kind !== "text") return ok(undefined);
  const decoded = decodeSessionRecord(read.value.text, id);
  return ok(decoded.isOk() ? { record: decoded.value, stats: stats.value } : undefined);
}

/** The heartbeat, in place: open without following a link, check by the open file that it is this
 * user's record under `joinToken`, then set its times. A removed record is never made again here. */
export function touchRecord(disk: FsBusContext, own: SessionRecord, nowMs: number): Result<TouchOutcome, StoreError> {
  return withRecordOpen(disk, own.id, (fd) => touchOpen(disk, fd, recordPath(disk, own.id), own, nowMs));
}

function touchOpen(
  disk: FsBusContext,
  fd: number,
  path: string,
  own: SessionRecord,
  nowMs: number,
): Result<TouchOutcome, StoreError> {
  const read = readOpenRecord(disk, fd, path, own.id);
  if (read.isErr()) return err(read.error);
  if (read.value === undefined) return ok(missing);
  if (!isOwn(read.value.record, own)) return ok({ kind: "changed", record: read.value.record });
  const at = new Date(nowMs);
  const touched = attempt("futimes", path, () => disk.fs.futimesSync(fd, at, at));
  if (touched.isErr()) return err(touched.error);
  // A prune may have moved the file away since the open: the beat went to its tombstone, and the
  // record at the path is gone (or another).
  const opened = attempt("fstat", path, () => disk.fs.fstatSync(fd));
  const now = lstatIfThere(disk.fs, path);
  if (opened.isErr()) return err(opened.error);
  if (now.isErr()) return err(now.error);
  const same = now.value !== undefined && now.value.ino === opened.value.ino && now.value.dev === opened.value.dev;
  if (!same) return ok({ kind: "missing" });
  stampsOf(disk).set(own.id, { dev: opened.value.dev, ino: opened.value.ino, mtimeMs: opened.value.mtimeMs });
  return ok({ kind: "touched" });
}

/** Removes `id`'s record while it carries `joinToken` and, given `heartbeatMs`, while its heartbeat
 * is still that one: a prune removes the record it judged expired, never one that beat since. The
 * record is read first, so one with another token or a newer beat is never moved. Only when the
 * session rewrites it between that read and the rename does the rename take the newer record: it is
 * found in the tombstone, put back by link, and for the few microseconds between the two a reader
 * sees no record for `id` (the one window left). */
export function removeRecord(
  disk: FsBusContext,
  id: string,
  joinToken: string,
  heartbeatMs?: number,
): Result<boolean, StoreError> {
  const path = recordPath(disk, id);
  const there = folderThere(disk, folderPath(disk, "sessions"));
  if (there.isErr() || !there.value) return there.map(() => true);
  const judged = (found: (RecordRead & { mtimeMs: number }) | undefined) =>
    found?.kind === "record" &&
    found.record.joinToken === joinToken &&
    (heartbeatMs === undefined || found.mtimeMs === heartbeatMs);
  const current = readAt(disk, path, id);
  if (current.isErr()) return err(current.error);
  // Gone already, or changed since it was judged (a beat, a newer join): that record stays.
  if (!judged(current.value)) return ok(current.value === undefined);
  const ready = ensureOwn(disk, folderPath(disk, "tmp"));
  if (ready.isErr()) return err(ready.error);
  const tomb = tmpName(disk, `removing~${id}`, suffix);
  const moved = attempt("rename", path, () => disk.fs.renameSync(path, tomb));
  if (failedWith(moved, "ENOENT")) return ok(true);
  if (moved.isErr()) return err(moved.error);
  // The rename keeps the mtime: the tombstone's is the heartbeat of the record it took.
  const seen = readAt(disk, tomb, id);
  const ours = seen.isOk() && judged(seen.value);
  // EEXIST on the way back: a newer record is in place already, and the moved one is older still.
  if (!ours) attempt("link", path, () => disk.fs.linkSync(tomb, path));
  return unlinkIfThere(disk.fs, tomb).map(() => ours);
}
