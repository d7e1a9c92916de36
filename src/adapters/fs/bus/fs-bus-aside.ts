// `inbox/<id>/.shown/<reader pid>~<message file>`: messages an `inbox` read showed, moved aside (a
// rename keeps the mtime, the arrival) until the session has recorded that they reached the model.
// Then they are deleted; what never reached it goes back into the inbox, where its mtime puts it
// at the front again. No listing of the inbox sees them (a dot-folder), so nothing shows them twice.
// The folder stays while the inbox does; the prune counts an inbox holding only it as empty.
import { err, ok, type Result } from "neverthrow";
import { messageIdOfFileName } from "../../../domain/bus/bus-message.js";
import { asideListedMax } from "../../../domain/bus/limits.js";
import type { AsideEntry } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { assertEntryName } from "../shared/fs-files.js";
import { unlinkIfThere } from "../shared/fs-leftovers.js";
import { ensureOwn, type FsBusContext, folderThere, inboxFolder, scanFolder } from "./fs-bus-folders.js";
import { forget, knownIndex, learn } from "./fs-bus-inbox-index.js";

export const asideFolderName = ".shown";

function asideFolder(disk: FsBusContext, id: string): string {
  return `${inboxFolder(disk, id)}/${asideFolderName}`;
}

/** Moves these inbox files aside for `reader`; returns the names moved (one gone meanwhile is not). */
function moveAside(
  disk: FsBusContext,
  id: string,
  names: readonly string[],
  reader: number,
): Result<string[], StoreError> {
  for (const name of names) assertEntryName(name);
  const folder = asideFolder(disk, id);
  const ready = ensureOwn(disk, folder);
  if (ready.isErr()) return err(ready.error);
  const moved: string[] = [];
  for (const name of names) {
    const from = `${inboxFolder(disk, id)}/${name}`;
    const done = attempt("rename", from, () => disk.fs.renameSync(from, `${folder}/${reader}~${name}`));
    if (done.isOk()) moved.push(name);
    else if (!failedWith(done, "ENOENT")) return moved.length > 0 ? ok(moved) : err(done.error);
  }
  return ok(moved);
}

/** What is set aside in `id`'s inbox, at most asideListedMax entries. */
export function listAside(disk: FsBusContext, id: string): Result<AsideEntry[], StoreError> {
  const folder = asideFolder(disk, id);
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => []);
  const found: AsideEntry[] = [];
  const scanned = scanFolder(disk.fs, folder, asideListedMax, (entry) => {
    if (!entry.isFile()) return;
    const cut = entry.name.indexOf("~");
    const reader = Number(entry.name.slice(0, cut));
    const name = entry.name.slice(cut + 1);
    const messageId = messageIdOfFileName(name);
    if (cut > 0 && Number.isSafeInteger(reader) && messageId !== undefined)
      found.push({ aside: entry.name, name, messageId, reader });
  });
  return scanned.map(() => found);
}

/** Deletes these aside entries (their messages reached the model). */
export function dropAside(disk: FsBusContext, id: string, entries: readonly AsideEntry[]): Result<void, StoreError> {
  const folder = asideFolder(disk, id);
  for (const entry of entries) {
    assertEntryName(entry.aside);
    const gone = unlinkIfThere(disk.fs, `${folder}/${entry.aside}`);
    if (gone.isErr()) return err(gone.error);
  }
  return ok(undefined);
}

/** Puts these aside entries back into the inbox under their own names; returns the names put back. */
function restoreAside(disk: FsBusContext, id: string, entries: readonly AsideEntry[]): Result<string[], StoreError> {
  const folder = asideFolder(disk, id);
  const restored: string[] = [];
  for (const entry of entries) {
    assertEntryName(entry.aside);
    assertEntryName(entry.name);
    const to = `${inboxFolder(disk, id)}/${entry.name}`;
    const done = attempt("rename", to, () => disk.fs.renameSync(`${folder}/${entry.aside}`, to));
    if (done.isOk()) restored.push(entry.name);
    else if (!failedWith(done, "ENOENT")) return err(done.error);
  }
  return ok(restored);
}

export function setAside(
  disk: FsBusContext,
  id: string,
  names: readonly string[],
  reader: number,
): Result<string[], StoreError> {
  const moved = moveAside(disk, id, names, reader);
  const index = knownIndex(disk, id);
  if (moved.isOk() && index !== undefined) for (const name of moved.value) forget(index, name);
  return moved;
}

/** Puts shown mail back; the index learns of it at once, since its arrival is older than what the
 * index is sure of (a listing would not be taken again for it). */
export function restoreShown(
  disk: FsBusContext,
  id: string,
  entries: readonly AsideEntry[],
): Result<string[], StoreError> {
  const restored = restoreAside(disk, id, entries);
  const index = knownIndex(disk, id);
  if (restored.isErr() || index === undefined) return restored;
  for (const name of restored.value) {
    const known = learn(disk.fs, index, name);
    if (known.isErr()) return err(known.error);
  }
  return restored;
}
