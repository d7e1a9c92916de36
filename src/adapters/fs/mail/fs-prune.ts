// What pruning needs from the mail root: facts about each address folder, and removing one.
import { err, ok, type Result } from "neverthrow";
import { type Address, isAddress } from "../../../domain/mail/address.js";
import { folderEntriesMax, pruneFoldersMax, runningRecordBytesMax } from "../../../domain/mail/limits.js";
import type { BoxFacts } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith, notAFolder } from "../shared/fs-errors.js";
import { checkFolder, ensureFolder, listEntries } from "../shared/fs-files.js";
import { settleTombstone as settleLeftover } from "../shared/fs-leftovers.js";
import { readEntry } from "../shared/fs-read.js";
import { addressFolder, allBoxes, type FsMailContext, runningFolderName } from "./fs-boxes.js";
import { readJournalIn } from "./fs-claim-journal.js";
import { ownerName } from "./fs-owner.js";

/** Every real folder in the root named like an address (running/, links and other names left out),
 * at most pruneFoldersMax. A folder whose facts cannot be read is left out too: unlisted is never
 * pruned, which is the safe side. */
export function listBoxes(disk: FsMailContext): Result<BoxFacts[], StoreError> {
  let listed = listEntries(disk.fs, disk.root, folderEntriesMax);
  if (listed.isErr()) return err(listed.error);
  // Tombstones a crashed prune left are settled first (their mail goes back), then listed anew.
  const left = listed.value.entries
    .map((entry) => entry.name)
    .filter((name) => name.startsWith(tombstonePrefix) && isAddress(name.slice(tombstonePrefix.length)))
    .slice(0, pruneFoldersMax);
  for (const name of left) settleTombstone(disk, name.slice(tombstonePrefix.length) as Address);
  if (left.length > 0) listed = listEntries(disk.fs, disk.root, folderEntriesMax);
  if (listed.isErr()) return err(listed.error);
  const candidates = listed.value.entries
    .filter((entry) => entry.isDirectory() && !entry.isSymbolicLink())
    .map((entry) => entry.name)
    .filter((name): name is Address => name !== runningFolderName && isAddress(name))
    .slice(0, pruneFoldersMax);
  const facts: BoxFacts[] = [];
  for (const address of candidates) {
    const found = boxFacts(disk, address);
    if (found !== undefined) facts.push(found);
  }
  return ok(facts);
}

function boxFacts(disk: FsMailContext, address: Address): BoxFacts | undefined {
  const folder = addressFolder(disk, address);
  const top = checkFolder(disk.fs, folder);
  if (top.isErr()) return undefined;
  let lastActivityMs = top.value.mtimeMs;
  for (const box of allBoxes) {
    const seen = attempt("lstat", `${folder}/${box}`, () => disk.fs.lstatSync(`${folder}/${box}`));
    if (seen.isOk()) lastActivityMs = Math.max(lastActivityMs, seen.value.mtimeMs);
    else if (!failedWith(seen, "ENOENT")) return undefined;
  }
  const waiting = waitingIn(disk, folder);
  return waiting === undefined ? undefined : { address, lastActivityMs, waiting };
}

/** Unread mail in an address folder: entries of new/ and what its claim journal names (mail
 * claimed but never read is unread too); undefined when that cannot be told. */
function waitingIn(disk: FsMailContext, folder: string): number | undefined {
  const waiting = countWaiting(disk, `${folder}/new`);
  if (waiting === undefined) return undefined;
  const journal = readJournalIn(disk.fs, folder);
  // A journal that cannot be read may name any amount of unread mail: the folder is kept.
  const claimedUnread = journal.isOk() ? journal.value.names.length + (journal.value.damaged === undefined ? 0 : 1) : 1;
  return waiting + claimedUnread;
}

// Any entry of new/ counts. A new/ that is there but not a real folder counts as one waiting entry:
// something unknown sits where unread mail would, so the folder is kept.
function countWaiting(disk: FsMailContext, path: string): number | undefined {
  const folder = checkFolder(disk.fs, path);
  if (failedWith(folder, "ENOENT")) return 0;
  if (folder.isErr()) return folder.error.kind === "not-a-folder" ? 1 : undefined;
  // Whether anything waits is all a prune asks: one entry read, never the whole folder (listing a
  // big inbox's new/ stalled the first poll for 140 ms and held every name in memory).
  const opened = attempt("opendir", path, () => disk.fs.opendirSync(path));
  if (opened.isErr()) return undefined;
  const dir = opened.value;
  const first = attempt("readdir", path, () => dir.readSync());
  attempt("closedir", path, () => dir.closeSync());
  return first.isOk() ? (first.value === null ? 0 : 1) : undefined;
}

/** Where a folder waits while its removal is decided: a dot-name, so no listing takes it for an
 * address and no sender's path reaches it. */
const tombstonePrefix = ".pruning-";

function tombstoneOf(disk: FsMailContext, address: Address): string {
  return `${disk.root}/${tombstonePrefix}${address}`;
}

/** Removes a closed session's folder, never mail a send reported delivered. A sender's rename into
 * new/ either came before the folder was moved to its tombstone (and is seen there: the folder goes
 * back) or finds no folder and fails (its sender is told nothing was sent). The tombstone is
 * checked once moved, when no path reaches it any more, and removed only while still empty.
 * Returns whether it was removed. A folder already gone counts as removed; a link or a file in its
 * place is refused. */
export function removeBox(
  disk: FsMailContext,
  address: Address,
  ownerSeen: string | undefined,
): Result<boolean, StoreError> {
  const folder = addressFolder(disk, address);
  if (address === runningFolderName) return err(notAFolder(folder));
  const tomb = tombstoneOf(disk, address);
  // A tombstone left by a prune that crashed is settled first: mail in it goes back. One that must
  // stay (it holds mail it could not hand back) keeps this folder until the next prune.
  const left = settleTombstone(disk, address);
  if (left.isErr()) return err(left.error);
  if (!failedWith(checkFolder(disk.fs, tomb), "ENOENT")) return ok(false);
  const checked = checkFolder(disk.fs, folder);
  if (failedWith(checked, "ENOENT")) return ok(true);
  if (checked.isErr()) return err(checked.error);
  const moved = attempt("rename", tomb, () => disk.fs.renameSync(folder, tomb));
  if (failedWith(moved, "ENOENT")) return ok(true);
  if (moved.isErr()) return err(moved.error);
  return settleTombstone(disk, address, { ownerSeen });
}

/** Removes the tombstone when nothing waits in it and its owner record is the one the prune judged
 * gone; otherwise puts it back at its address, or, when a sender made the folder anew meanwhile,
 * moves what waits in its new/ into the new folder. `judged` is undefined for a tombstone a crashed
 * prune left: any owner record in it keeps it (the next prune judges it again). Returns whether it
 * was removed. */
export function settleTombstone(
  disk: FsMailContext,
  address: Address,
  judged?: { ownerSeen: string | undefined },
): Result<boolean, StoreError> {
  return settleLeftover(disk.fs, tombstoneOf(disk, address), addressFolder(disk, address), {
    removable: (tomb) => ok(waitingIn(disk, tomb) === 0 && !ownedSince(disk, tomb, judged)),
    merge: (tomb, folder) => mergeInto(disk, tomb, folder),
    // Emptied of its unread mail, the tombstone goes; otherwise it waits for the next prune.
    emptied: (tomb) => waitingIn(disk, tomb) === 0,
  }).map((fate) => fate === "removed");
}

/** A session took the inbox after the prune judged it (it started between that look and the move):
 * the owner record in the tombstone is not the one judged gone. */
function ownedSince(disk: FsMailContext, tomb: string, judged: { ownerSeen: string | undefined } | undefined): boolean {
  const found = readEntry(disk.fs, `${tomb}/${ownerName}`, runningRecordBytesMax);
  if (found.isErr()) return true;
  if (found.value.kind === "gone") return false;
  return judged === undefined || found.value.kind !== "text" || found.value.text !== judged.ownerSeen;
}

/** The folder was made anew: the tombstone's unread mail moves into it, by rename (names are
 * unique); whatever else it holds waits for the next prune. */
function mergeInto(disk: FsMailContext, tomb: string, folder: string): Result<void, StoreError> {
  const made = ensureFolder(disk.fs, `${folder}/new`);
  if (made.isErr()) return err(made.error);
  const listed = listEntries(disk.fs, `${tomb}/new`, folderEntriesMax);
  if (listed.isErr()) return failedWith(listed, "ENOENT") ? ok(undefined) : err(listed.error);
  for (const entry of listed.value.entries) {
    const from = `${tomb}/new/${entry.name}`;
    const moved = attempt("rename", from, () => disk.fs.renameSync(from, `${folder}/new/${entry.name}`));
    if (moved.isErr()) return err(moved.error);
  }
  return ok(undefined);
}
