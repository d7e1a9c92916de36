// `<root>/running/<address>.json`: one owner-only record per running session.
import { err, ok, type Result } from "neverthrow";
import { type Address, isAddress } from "../../../domain/mail/address.js";
import { folderEntriesMax, runningRecordBytesMax, runningRecordsMax } from "../../../domain/mail/limits.js";
import type { RunningEntry } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { listEntries, mayBeThere, writeAtomic } from "../shared/fs-files.js";
import { readOwnEntry } from "../shared/fs-read.js";
import { addressFolder, checkOwnFolder, ensureOwnFolder, type FsMailContext, runningFolderName } from "./fs-boxes.js";

const recordSuffix = ".json";

function runningFolder(disk: FsMailContext): string {
  return `${disk.root}/${runningFolderName}`;
}

function recordPath(disk: FsMailContext, address: Address): string {
  addressFolder(disk, address); // validates the address before it becomes a file name
  return `${runningFolder(disk)}/${address}${recordSuffix}`;
}

/** Temp file then rename, so a reader sees the old record or the new one, never half of one. The
 * temp name is a dot-file (listings skip it) owned by this address's one writer, so a crashed
 * writer's leftover is replaced rather than refused. */
export function writeRunning(disk: FsMailContext, address: Address, text: string): Result<void, StoreError> {
  const finalPath = recordPath(disk, address);
  return ensureOwnFolder(disk, runningFolder(disk)).andThen(() =>
    writeAtomic(disk.fs, {
      tmpPath: `${runningFolder(disk)}/.${address}${recordSuffix}.tmp`,
      finalPath,
      text,
      durable: false,
      syncFolder: undefined,
      replaceLeftover: true,
    }).map(() => undefined),
  );
}

/** The record's text, or undefined when there is none or it cannot be mail-root data: a symlink, a
 * folder, a FIFO, a record another user owns or one over runningRecordBytesMax reads as absent (not
 * running), never followed. */
export function readRunning(disk: FsMailContext, address: Address): Result<string | undefined, StoreError> {
  const path = recordPath(disk, address);
  const folder = checkOwnFolder(disk, runningFolder(disk));
  if (failedWith(folder, "ENOENT")) return ok(undefined);
  if (folder.isErr()) return err(folder.error);
  return readOwnEntry(disk.fs, path, runningRecordBytesMax, disk.uid).map((found) =>
    found.kind === "text" ? found.text : undefined,
  );
}

export function hasRunning(disk: FsMailContext, address: Address): boolean {
  return mayBeThere(disk.fs, recordPath(disk, address));
}

/** Every readable record, by file name; at most runningRecordsMax. Dot-files (temp files) and names
 * that are not `<address>.json` are skipped; so are records that read as absent (see readRunning). */
export function listRunning(disk: FsMailContext): Result<RunningEntry[], StoreError> {
  const folder = checkOwnFolder(disk, runningFolder(disk));
  if (failedWith(folder, "ENOENT")) return ok([]);
  if (folder.isErr()) return err(folder.error);
  const listed = listEntries(disk.fs, runningFolder(disk), folderEntriesMax);
  if (listed.isErr()) return err(listed.error);
  const addresses = listed.value.entries
    .map((entry) => entry.name)
    .filter((name) => name.endsWith(recordSuffix) && !name.startsWith("."))
    .map((name) => name.slice(0, -recordSuffix.length))
    .filter(isAddress)
    .slice(0, runningRecordsMax);
  const records: RunningEntry[] = [];
  for (const address of addresses) {
    const text = readRunning(disk, address);
    if (text.isErr()) return err(text.error);
    if (text.value !== undefined) records.push({ address, text: text.value });
  }
  return ok(records);
}

/** Unlinks the record; with `expectedText`, only while it still holds exactly that text (a record
 * the session rewrote since it was read stays). Already gone counts as removed. */
export function removeRunning(
  disk: FsMailContext,
  address: Address,
  expectedText: string | undefined,
): Result<void, StoreError> {
  const path = recordPath(disk, address);
  if (expectedText === undefined) {
    const removed = attempt("unlink", path, () => disk.fs.unlinkSync(path));
    return failedWith(removed, "ENOENT") ? ok(undefined) : removed;
  }
  const current = readRunning(disk, address);
  if (current.isErr()) return err(current.error);
  if (current.value !== expectedText) return ok(undefined);
  // A session restarting may write its new record between that read and the removal: the record
  // is moved aside first (a dot-name listings skip), compared there, and put back if it changed.
  const aside = `${runningFolder(disk)}/.${address}${recordSuffix}.reaping`;
  const moved = attempt("rename", path, () => disk.fs.renameSync(path, aside));
  if (failedWith(moved, "ENOENT")) return ok(undefined);
  if (moved.isErr()) return err(moved.error);
  const seen = readOwnEntry(disk.fs, aside, runningRecordBytesMax, disk.uid);
  const stale = seen.isOk() && seen.value.kind === "text" && seen.value.text === expectedText;
  // EEXIST on the way back: a newer record is in place already, and the one moved aside is older.
  if (!stale) attempt("link", path, () => disk.fs.linkSync(aside, path));
  const removed = attempt("unlink", aside, () => disk.fs.unlinkSync(aside));
  return failedWith(removed, "ENOENT") ? ok(undefined) : removed;
}
