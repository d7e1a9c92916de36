// `inbox/<id>/<15-digit ms>-<message id>.json`: one file per message, published whole (a temp file
// in tmp/ renamed in). Its mtime is the arrival order; the reader's index (fs-bus-inbox-index.ts)
// keeps it, so the front of the queue costs what is new since the last look, and only the front is read.
import { err, ok, type Result } from "neverthrow";
import type { BusMessage } from "../../../domain/bus/bus-files.js";
import {
  decodeBusMessage,
  encodeBusMessage,
  messageFileName,
  messageIdOfFileName,
} from "../../../domain/bus/bus-message.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import { inboxEntriesMax, inboxesListedMax, inboxPassSliceMax, messageBytesMax } from "../../../domain/bus/limits.js";
import type {
  FileCount,
  InboxEntry,
  InboxPeek,
  InboxTime,
  Unreadable,
  UnseenMail,
} from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { failedWith } from "../shared/fs-errors.js";
import { assertEntryName, mayBeThere, writeAtomic } from "../shared/fs-files.js";
import { unlinkIfThere } from "../shared/fs-leftovers.js";
import { readOwnEntry } from "../shared/fs-read.js";
import {
  ensureOwn,
  type FsBusContext,
  folderPath,
  folderThere,
  inboxFolder,
  ownFolderStats,
  scanFolder,
  tmpName,
} from "./fs-bus-folders.js";
import {
  type Arrival,
  advance,
  forget,
  front,
  type InboxIndex,
  indexOf,
  knownIndex,
  liveCount,
  noFolder,
  relist,
} from "./fs-bus-inbox-index.js";

export function hasMessage(disk: FsBusContext, id: string, name: string): boolean {
  assertEntryName(name);
  return isBusId(id) && mayBeThere(disk.fs, `${inboxFolder(disk, id)}/${name}`);
}

export function openInbox(disk: FsBusContext, id: string): Result<void, StoreError> {
  return ensureOwn(disk, folderPath(disk, "inbox"))
    .andThen(() => ensureOwn(disk, inboxFolder(disk, id)))
    .map(() => undefined);
}

export function deliver(disk: FsBusContext, message: BusMessage, sentAtMs: number): Result<string, StoreError> {
  const text = encodeBusMessage(message);
  const name = messageFileName(sentAtMs, message.id);
  const folder = inboxFolder(disk, message.to);
  const publish = () =>
    ensureOwn(disk, folderPath(disk, "inbox"))
      .andThen(() => ensureOwn(disk, folder))
      .andThen(() => ensureOwn(disk, folderPath(disk, "tmp")))
      .andThen(() =>
        writeAtomic(disk.fs, {
          tmpPath: tmpName(disk, "message", ".json"),
          finalPath: `${folder}/${name}`,
          text,
          // Coordination mail, not the mailbox's: a power cut may lose it, a crash may not.
          durable: false,
          syncFolder: undefined,
          replaceLeftover: false,
        }),
      );
  // ENOENT: a prune moved the empty inbox away between the check and the rename; made again once.
  const first = publish();
  const published = failedWith(first, "ENOENT") ? publish() : first;
  return published.map(() => name);
}

interface Walk {
  entries: InboxEntry[];
  /** The walk reached mail newer than the index is sure of, or its end, before `max` messages. */
  unsure: boolean;
}

/** The front of the index, read. `listedNow`: the folder was just listed whole, so what the index
 * holds is the best anyone can know; otherwise the walk stops where the index is no longer sure. */
function walkFront(
  disk: FsBusContext,
  index: InboxIndex,
  id: string,
  max: number,
  time: InboxTime,
  listedNow: boolean,
): Result<Walk, StoreError> {
  const walk: Walk = { entries: [], unsure: false };
  const exactBefore = listedNow ? Number.POSITIVE_INFINITY : (index.exactBeforeMs ?? Number.NEGATIVE_INFINITY);
  let messages = 0;
  for (const arrival of front(index)) {
    if (messages >= max) return ok(walk);
    if (arrival.mtimeMs < time.expiredBeforeMs) continue;
    if (arrival.mtimeMs >= exactBefore) {
      walk.unsure = true;
      return ok(walk);
    }
    const entry = readArrival(disk, index.folder, id, arrival);
    if (entry.isErr()) return err(entry.error);
    // Consumed or pruned since it was indexed: neither shown nor counted.
    if (entry.value === undefined) forget(index, arrival.name);
    else walk.entries.push(entry.value);
    if (entry.value?.kind === "message") messages++;
  }
  walk.unsure = messages < max;
  return ok(walk);
}

export function peekInbox(disk: FsBusContext, id: string, max: number, time: InboxTime): Result<InboxPeek, StoreError> {
  const folder = inboxFolder(disk, id);
  const there = ownFolderStats(disk, folder);
  if (there.isErr() || there.value === undefined) {
    noFolder(disk, id);
    return there.map(() => ({ entries: [], files: 0 }));
  }
  const folderBytes = there.value.size;
  const index = indexOf(disk, id);
  // `max` counts messages: files this build cannot read never fill the page, or enough of them would
  // hide every later message until the TTL.
  let walk =
    index.exactBeforeMs === undefined
      ? ok({ entries: [], unsure: true })
      : walkFront(disk, index, id, max, time, false);
  if (walk.isOk() && walk.value.unsure) {
    const listed = relist(disk.fs, index, time.nowMs, folderBytes);
    if (listed.isErr()) return err(listed.error);
    walk = walkFront(disk, index, id, max, time, true);
  }
  if (walk.isErr()) return err(walk.error);
  return ok({ entries: walk.value.entries, files: liveCount(index, time.expiredBeforeMs) });
}

export function peekUnseen(
  disk: FsBusContext,
  id: string,
  max: number,
  skip: ReadonlySet<string>,
  time: InboxTime,
): Result<UnseenMail, StoreError> {
  const folder = inboxFolder(disk, id);
  const there = ownFolderStats(disk, folder);
  if (there.isErr() || there.value === undefined) {
    noFolder(disk, id);
    return there.map(() => ({ messages: [], unreadableIds: [], ids: new Set<string>(), complete: true }));
  }
  const index = indexOf(disk, id);
  const listed = advance(disk.fs, index, inboxPassSliceMax, time.nowMs, there.value.size);
  if (listed.isErr()) return err(listed.error);
  const unseen: UnseenMail = {
    messages: [],
    unreadableIds: [],
    ids: index.ids,
    complete: index.exactBeforeMs !== undefined,
  };
  for (const arrival of front(index)) {
    if (unseen.messages.length >= max) break;
    if (arrival.mtimeMs < time.expiredBeforeMs) continue;
    const fileId = messageIdOfFileName(arrival.name);
    if (fileId === undefined || skip.has(fileId)) continue;
    const entry = readArrival(disk, folder, id, arrival);
    if (entry.isErr()) return err(entry.error);
    if (entry.value === undefined) forget(index, arrival.name);
    else if (entry.value.kind === "message") unseen.messages.push(entry.value);
    else unseen.unreadableIds.push(fileId);
  }
  return ok(unseen);
}

export function inboxIds(disk: FsBusContext, id: string, nowMs: number): Result<ReadonlySet<string>, StoreError> {
  const folder = inboxFolder(disk, id);
  const there = ownFolderStats(disk, folder);
  if (there.isErr() || there.value === undefined) {
    noFolder(disk, id);
    return there.map(() => new Set<string>());
  }
  const index = indexOf(disk, id);
  const folderBytes = there.value.size;
  // Once listed whole, a slice a call keeps it current; a first look lists it whole.
  const listed =
    index.exactBeforeMs === undefined
      ? relist(disk.fs, index, nowMs, folderBytes)
      : advance(disk.fs, index, inboxPassSliceMax, nowMs, folderBytes).map(() => undefined);
  return listed.map(() => index.ids);
}

/** One file of `id`'s inbox read as a message (undefined: gone). */
export function readArrival(
  disk: FsBusContext,
  folder: string,
  id: string,
  { name, mtimeMs }: Arrival,
): Result<InboxEntry | undefined, StoreError> {
  const unreadable = (reason: Unreadable["reason"]): InboxEntry => ({
    kind: "unreadable",
    name,
    reason,
    mtimeMs,
    arrivedMs: mtimeMs,
  });
  const fileId = messageIdOfFileName(name);
  if (fileId === undefined) return ok(unreadable("name-mismatch"));
  const read = readOwnEntry(disk.fs, `${folder}/${name}`, messageBytesMax, disk.uid);
  if (read.isErr()) return err(read.error);
  const found = read.value;
  switch (found.kind) {
    case "gone":
      return ok(undefined);
    case "set-aside":
      return ok(unreadable(found.reason === "too-big" ? "too-big" : "not-a-file"));
    case "text": {
      const decoded = decodeBusMessage(found.text);
      if (decoded.isErr()) return ok(unreadable(decoded.error.kind));
      // A message in another's inbox, or under another id's name, is not what it says it is.
      if (decoded.value.id !== fileId || decoded.value.to !== id) return ok(unreadable("name-mismatch"));
      return ok({ kind: "message", name, arrivedMs: mtimeMs, message: decoded.value });
    }
    default: {
      const never: never = found;
      return never;
    }
  }
}

/** Unlinks the named files; one already gone, or one that cannot be removed, is left out of the
 * answer (a file left is shown again, never lost). */
export function consume(disk: FsBusContext, id: string, names: readonly string[]): Result<string[], StoreError> {
  for (const name of names) assertEntryName(name);
  const folder = inboxFolder(disk, id);
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => []);
  const removed: string[] = [];
  const index = knownIndex(disk, id);
  for (const name of names) {
    const gone = unlinkIfThere(disk.fs, `${folder}/${name}`);
    if (gone.isOk() && gone.value) removed.push(name);
    if (index !== undefined && gone.isOk()) forget(index, name);
  }
  return ok(removed);
}

/** Regular files in the inbox, by the listing's own types (no lstat), at most inboxEntriesMax:
 * past it the count says "at least". */
export function countInbox(disk: FsBusContext, id: string): Result<FileCount, StoreError> {
  const folder = inboxFolder(disk, id);
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => ({ files: 0, atLeast: false }));
  let files = 0;
  return scanFolder(disk.fs, folder, inboxEntriesMax, (entry) => {
    if (entry.isFile()) files++;
  }).map((cut) => ({ files, atLeast: cut }));
}

/** The real folders of inbox/ named like a session id, sorted, at most inboxesListedMax. */
export function listInboxes(disk: FsBusContext): Result<string[], StoreError> {
  const folder = folderPath(disk, "inbox");
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => []);
  const ids: string[] = [];
  return scanFolder(disk.fs, folder, inboxesListedMax, (entry) => {
    if (entry.isDirectory() && !entry.isSymbolicLink() && isBusId(entry.name)) ids.push(entry.name);
  }).map(() => ids.sort());
}
