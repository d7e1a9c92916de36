// `inbox/<id>/<15-digit ms>-<message id>.json`: one file per message, published whole (a temp file
// in tmp/ renamed in). Its mtime is the arrival order, so the front of the queue costs one listing
// and one lstat per entry, and only the front is read.
import { err, ok, type Result } from "neverthrow";
import type { BusMessage } from "../../../domain/bus/bus-files.js";
import {
  decodeBusMessage,
  encodeBusMessage,
  messageFileName,
  messageIdOfFileName,
} from "../../../domain/bus/bus-message.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import { inboxEntriesMax, inboxesListedMax, messageBytesMax } from "../../../domain/bus/limits.js";
import type { InboxEntry, InboxPeek, Unreadable, UnseenMail } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { failedWith } from "../shared/fs-errors.js";
import { assertEntryName, writeAtomic } from "../shared/fs-files.js";
import { readOwnEntry } from "../shared/fs-read.js";
import {
  type BusContext,
  ensureOwn,
  folderPath,
  folderThere,
  inboxFolder,
  lstatIfThere,
  scanFolder,
  tmpName,
  unlinkIfThere,
} from "./fs-bus-folders.js";

export function openInbox(ctx: BusContext, id: string): Result<void, StoreError> {
  return ensureOwn(ctx, folderPath(ctx, "inbox"))
    .andThen(() => ensureOwn(ctx, inboxFolder(ctx, id)))
    .map(() => undefined);
}

export function deliver(ctx: BusContext, message: BusMessage, sentAtMs: number): Result<string, StoreError> {
  const text = encodeBusMessage(message);
  const name = messageFileName(sentAtMs, message.id);
  const folder = inboxFolder(ctx, message.to);
  const publish = () =>
    ensureOwn(ctx, folderPath(ctx, "inbox"))
      .andThen(() => ensureOwn(ctx, folder))
      .andThen(() => ensureOwn(ctx, folderPath(ctx, "tmp")))
      .andThen(() =>
        writeAtomic(ctx.fs, {
          tmpPath: tmpName(ctx, "message", ".json"),
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

interface Arrival {
  name: string;
  mtimeMs: number;
}

/** The inbox's regular files by arrival (mtime, then name): one listing, one lstat per file. */
function arrivals(ctx: BusContext, folder: string): Result<Arrival[], StoreError> {
  const names: string[] = [];
  const scanned = scanFolder(ctx.fs, folder, inboxEntriesMax, (entry) => {
    if (entry.isFile()) names.push(entry.name);
  });
  if (scanned.isErr()) return err(scanned.error);
  const found: Arrival[] = [];
  for (const name of names) {
    const seen = lstatIfThere(ctx.fs, `${folder}/${name}`);
    if (seen.isErr()) return err(seen.error);
    if (seen.value?.isFile() === true) found.push({ name, mtimeMs: seen.value.mtimeMs });
  }
  found.sort((a, b) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return ok(found);
}

export function peekInbox(ctx: BusContext, id: string, max: number): Result<InboxPeek, StoreError> {
  const folder = inboxFolder(ctx, id);
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => ({ entries: [], files: 0 }));
  const listed = arrivals(ctx, folder);
  if (listed.isErr()) return err(listed.error);
  const peek: InboxPeek = { entries: [], files: listed.value.length };
  // `max` counts messages: files this build cannot read never fill the page, or enough of them would
  // hide every later message until the TTL. The walk stays bounded by the listing (inboxEntriesMax).
  let messages = 0;
  for (const arrival of listed.value) {
    if (messages >= max) break;
    const entry = readArrival(ctx, folder, id, arrival);
    if (entry.isErr()) return err(entry.error);
    // Consumed by a twin process since the listing: neither shown nor counted.
    if (entry.value === undefined) peek.files--;
    else peek.entries.push(entry.value);
    if (entry.value?.kind === "message") messages++;
  }
  return ok(peek);
}

export function peekUnseen(
  ctx: BusContext,
  id: string,
  max: number,
  skip: ReadonlySet<string>,
): Result<UnseenMail, StoreError> {
  const folder = inboxFolder(ctx, id);
  const unseen: UnseenMail = { messages: [], unreadableIds: [], ids: [] };
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => unseen);
  const listed = arrivals(ctx, folder);
  if (listed.isErr()) return err(listed.error);
  for (const arrival of listed.value) {
    const fileId = messageIdOfFileName(arrival.name);
    if (fileId === undefined) continue;
    unseen.ids.push(fileId);
    if (skip.has(fileId) || unseen.messages.length >= max) continue;
    const entry = readArrival(ctx, folder, id, arrival);
    if (entry.isErr()) return err(entry.error);
    if (entry.value?.kind === "message") unseen.messages.push(entry.value);
    else if (entry.value?.kind === "unreadable") unseen.unreadableIds.push(fileId);
  }
  return ok(unseen);
}

function readArrival(
  ctx: BusContext,
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
  const read = readOwnEntry(ctx.fs, `${folder}/${name}`, messageBytesMax, ctx.uid);
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
export function consume(ctx: BusContext, id: string, names: readonly string[]): Result<string[], StoreError> {
  for (const name of names) assertEntryName(name);
  const folder = inboxFolder(ctx, id);
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => []);
  const removed: string[] = [];
  for (const name of names) {
    const gone = unlinkIfThere(ctx.fs, `${folder}/${name}`);
    if (gone.isOk() && gone.value) removed.push(name);
  }
  return ok(removed);
}

/** Regular files in the inbox, by the listing's own types (no lstat), at most inboxEntriesMax. */
export function countInbox(ctx: BusContext, id: string): Result<number, StoreError> {
  const folder = inboxFolder(ctx, id);
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => 0);
  let files = 0;
  return scanFolder(ctx.fs, folder, inboxEntriesMax, (entry) => {
    if (entry.isFile()) files++;
  }).map(() => files);
}

/** The real folders of inbox/ named like a session id, sorted, at most inboxesListedMax. */
export function listInboxes(ctx: BusContext): Result<string[], StoreError> {
  const folder = folderPath(ctx, "inbox");
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => []);
  const ids: string[] = [];
  return scanFolder(ctx.fs, folder, inboxesListedMax, (entry) => {
    if (entry.isDirectory() && !entry.isSymbolicLink() && isBusId(entry.name)) ids.push(entry.name);
  }).map(() => ids.sort());
}
