// `sessions/<id>.json`: one record per joined session, published whole by a temp file renamed into
// place. The rename keeps the temp file's mtime, which is the heartbeat.
import { err, ok, type Result } from "neverthrow";
import type { SessionRecord } from "../../../domain/bus/bus-files.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import { recordBytesMax, recordsListedMax } from "../../../domain/bus/limits.js";
import { decodeSessionRecord, encodeSessionRecord } from "../../../domain/bus/records.js";
import type { RecordListing, StoredRecord, Unreadable } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { writeAtomic } from "../shared/fs-files.js";
import { readOwnEntry } from "../shared/fs-read.js";
import {
  type BusContext,
  ensureOwn,
  folderPath,
  folderThere,
  lstatIfThere,
  recordPath,
  scanFolder,
  tmpName,
  unlinkIfThere,
} from "./fs-bus-folders.js";

const suffix = ".json";

type ReadOutcome = ReturnType<typeof readOwnEntry> extends Result<infer T, StoreError> ? T : never;

export function writeRecord(ctx: BusContext, record: SessionRecord): Result<void, StoreError> {
  const text = encodeSessionRecord(record);
  return ensureOwn(ctx, folderPath(ctx, "sessions"))
    .andThen(() => ensureOwn(ctx, folderPath(ctx, "tmp")))
    .andThen(() =>
      writeAtomic(ctx.fs, {
        tmpPath: tmpName(ctx, `record~${record.id}`, suffix),
        finalPath: recordPath(ctx, record.id),
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

function judgeRecord(found: ReadOutcome, id: string): RecordRead | undefined {
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
  ctx: BusContext,
  path: string,
  id: string,
): Result<(RecordRead & { mtimeMs: number }) | undefined, StoreError> {
  const read = readOwnEntry(ctx.fs, path, recordBytesMax, ctx.uid);
  if (read.isErr()) return err(read.error);
  const judged = judgeRecord(read.value, id);
  if (judged === undefined) return ok(undefined);
  return lstatIfThere(ctx.fs, path).map((stats) =>
    stats === undefined ? undefined : { ...judged, mtimeMs: stats.mtimeMs },
  );
}

export function readRecord(ctx: BusContext, id: string): Result<StoredRecord | undefined, StoreError> {
  const path = recordPath(ctx, id);
  const there = folderThere(ctx, folderPath(ctx, "sessions"));
  if (there.isErr() || !there.value) return there.map(() => undefined);
  return readAt(ctx, path, id).map((found) =>
    found?.kind === "record" ? { record: found.record, heartbeatMs: found.mtimeMs } : undefined,
  );
}

/** Every record of sessions/ that reads, and every other file there named. Dot-files are skipped;
 * at most recordsListedMax entries are looked at. */
export function listRecords(ctx: BusContext): Result<RecordListing, StoreError> {
  const folder = folderPath(ctx, "sessions");
  const listing: RecordListing = { records: [], unreadable: [] };
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => listing);
  const names: string[] = [];
  const scanned = scanFolder(ctx.fs, folder, recordsListedMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  names.sort();
  for (const name of names) {
    const path = `${folder}/${name}`;
    const id = name.endsWith(suffix) ? name.slice(0, -suffix.length) : "";
    if (!isBusId(id)) {
      const seen = lstatIfThere(ctx.fs, path);
      if (seen.isErr()) return err(seen.error);
      if (seen.value !== undefined)
        listing.unreadable.push({ name, reason: "name-mismatch", mtimeMs: seen.value.mtimeMs });
      continue;
    }
    const found = readAt(ctx, path, id);
    if (found.isErr()) return err(found.error);
    const item = found.value;
    if (item?.kind === "record") listing.records.push({ record: item.record, heartbeatMs: item.mtimeMs });
    else if (item !== undefined) listing.unreadable.push({ name, reason: item.reason, mtimeMs: item.mtimeMs });
  }
  return ok(listing);
}

/** Removes `id`'s record while it carries `joinToken` and, given `heartbeatMs`, while its heartbeat
 * is still that one: a prune removes the record it judged expired, never one that beat since. The
 * record is read first, so one with another token or a newer beat is never moved. Only when the
 * session rewrites it between that read and the rename does the rename take the newer record: it is
 * found in the tombstone, put back by link, and for the few microseconds between the two a reader
 * sees no record for `id` (the one window left). */
export function removeRecord(
  ctx: BusContext,
  id: string,
  joinToken: string,
  heartbeatMs?: number,
): Result<boolean, StoreError> {
  const path = recordPath(ctx, id);
  const there = folderThere(ctx, folderPath(ctx, "sessions"));
  if (there.isErr() || !there.value) return there.map(() => true);
  const judged = (found: (RecordRead & { mtimeMs: number }) | undefined) =>
    found?.kind === "record" &&
    found.record.joinToken === joinToken &&
    (heartbeatMs === undefined || found.mtimeMs === heartbeatMs);
  const current = readAt(ctx, path, id);
  if (current.isErr()) return err(current.error);
  // Gone already, or changed since it was judged (a beat, a newer join): that record stays.
  if (!judged(current.value)) return ok(current.value === undefined);
  const ready = ensureOwn(ctx, folderPath(ctx, "tmp"));
  if (ready.isErr()) return err(ready.error);
  const tomb = tmpName(ctx, `removing~${id}`, suffix);
  const moved = attempt("rename", path, () => ctx.fs.renameSync(path, tomb));
  if (failedWith(moved, "ENOENT")) return ok(true);
  if (moved.isErr()) return err(moved.error);
  // The rename keeps the mtime: the tombstone's is the heartbeat of the record it took.
  const seen = readAt(ctx, tomb, id);
  const ours = seen.isOk() && judged(seen.value);
  // EEXIST on the way back: a newer record is in place already, and the moved one is older still.
  if (!ours) attempt("link", path, () => ctx.fs.linkSync(tomb, path));
  return unlinkIfThere(ctx.fs, tomb).map(() => ours);
}
