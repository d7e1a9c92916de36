// What waits in a new/: listed for a claim, looked up for a sender (is it still queued?), and withdrawn
// by its sender: one rename out of new/ into the sender's own tmp/, the same move a recipient's claim
// makes into its cur/, so of the two exactly one succeeds, whichever implementation reads the box.
import { err, ok, type Result } from "neverthrow";
import type { Address } from "../../../domain/mail/address.js";
import { mayBeMailName } from "../../../domain/mail/envelope.js";
import { folderEntriesReadMax, hiddenNamesMax, inboxListingNamesMax } from "../../../domain/mail/limits.js";
import type { InboxListing } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { assertEntryName, listMailNames, mayBeThere } from "../shared/fs-files.js";
import { boxFolder, checkBox, type FsMailContext } from "./fs-boxes.js";

/** Whether `name` is in `address`'s new/ (one lstat; a missing box reads as not there). */
export function isQueued(disk: FsMailContext, address: Address, name: string): Result<boolean, StoreError> {
  assertEntryName(name);
  const checked = checkBox(disk, address, ["new"]);
  if (failedWith(checked, "ENOENT")) return ok(false);
  if (checked.isErr()) return err(checked.error);
  return ok(mayBeThere(disk.fs, `${boxFolder(disk, address, "new")}/${name}`));
}

/** Takes `name` out of `to`'s new/ into `from`'s tmp/ and removes it there. "not-queued": it was
 * not in new/ any more (claimed, or never delivered), and nothing changed. */
export function withdraw(
  disk: FsMailContext,
  from: Address,
  to: Address,
  name: string,
): Result<"withdrawn" | "not-queued", StoreError> {
  assertEntryName(name);
  const checked = checkBox(disk, to, ["new"]).andThen(() => checkBox(disk, from, ["tmp"]));
  if (failedWith(checked, "ENOENT")) return ok("not-queued");
  if (checked.isErr()) return err(checked.error);
  const source = `${boxFolder(disk, to, "new")}/${name}`;
  const aside = `${boxFolder(disk, from, "tmp")}/${name}.withdrawn`;
  const moved = attempt("rename", source, () => disk.fs.renameSync(source, aside));
  if (failedWith(moved, "ENOENT")) return ok("not-queued");
  if (moved.isErr()) return err(moved.error);
  // Withdrawn once moved: a file left in tmp/ by a failed unlink is swept with the other leftovers.
  attempt("unlink", aside, () => disk.fs.unlinkSync(aside));
  return ok("withdrawn");
}

/** Removes this address's sent copy `name` (a withdrawn send leaves no copy to await an answer). */
export function removeSent(disk: FsMailContext, address: Address, name: string): Result<void, StoreError> {
  assertEntryName(name);
  const path = `${boxFolder(disk, address, "sent")}/${name}`;
  const removed = attempt("unlink", path, () => disk.fs.unlinkSync(path));
  return failedWith(removed, "ENOENT") ? ok(undefined) : removed;
}

/** Lists new/, bounded; a listing forgets which cur/ names were checked (they are looked at again). */
export function listNew(disk: FsMailContext, address: Address): Result<InboxListing, StoreError> {
  const folder = boxFolder(disk, address, "new");
  disk.curChecked.delete(address);
  return checkBox(disk, address, ["new"]).andThen(() =>
    listMailNames(disk.fs, folder, mayBeMailName, {
      namesMax: inboxListingNamesMax,
      hiddenMax: hiddenNamesMax,
      entriesMax: folderEntriesReadMax,
    }),
  );
}
