// What pruning needs from the mail root: facts about each address folder, and removing one.
import { err, ok, type Result } from "neverthrow";
import { folderEntriesMax, pruneFoldersMax } from "../../domain/limits.js";
import { type Address, isAddress } from "../../domain/mail/address.js";
import type { BoxFacts, StoreError } from "../../ports/mail-store.js";
import { addressFolder, allBoxes, runningFolderName, type StoreContext } from "./fs-boxes.js";
import { readClaimJournal } from "./fs-claim-journal.js";
import { attempt, failedWith, notAFolder } from "./fs-errors.js";
import { checkFolder, listEntries } from "./fs-files.js";

/** Every real folder in the root named like an address (running/, links and other names left out),
 * at most pruneFoldersMax. A folder whose facts cannot be read is left out too: unlisted is never
 * pruned, which is the safe side. */
export function listBoxes(ctx: StoreContext): Result<BoxFacts[], StoreError> {
  const listed = listEntries(ctx.fs, ctx.root, folderEntriesMax);
  if (listed.isErr()) return err(listed.error);
  const candidates = listed.value.entries
    .filter((entry) => entry.isDirectory() && !entry.isSymbolicLink())
    .map((entry) => entry.name)
    .filter((name): name is Address => name !== runningFolderName && isAddress(name))
    .slice(0, pruneFoldersMax);
  const facts: BoxFacts[] = [];
  for (const address of candidates) {
    const found = boxFacts(ctx, address);
    if (found !== undefined) facts.push(found);
  }
  return ok(facts);
}

function boxFacts(ctx: StoreContext, address: Address): BoxFacts | undefined {
  const folder = addressFolder(ctx, address);
  const top = checkFolder(ctx.fs, folder);
  if (top.isErr()) return undefined;
  let lastActivityMs = top.value.mtimeMs;
  for (const box of allBoxes) {
    const seen = attempt("lstat", `${folder}/${box}`, () => ctx.fs.lstatSync(`${folder}/${box}`));
    if (seen.isOk()) lastActivityMs = Math.max(lastActivityMs, seen.value.mtimeMs);
    else if (!failedWith(seen, "ENOENT")) return undefined;
  }
  const waiting = countWaiting(ctx, `${folder}/new`);
  if (waiting === undefined) return undefined;
  // Mail claimed but never read (a crash between claim and read) is unread mail too.
  const journal = readClaimJournal(ctx, address);
  const claimedUnread = journal.isOk() ? journal.value.length : 1;
  return { address, lastActivityMs, waiting: waiting + claimedUnread };
}

// Any entry of new/ counts. A new/ that is there but not a real folder counts as one waiting entry:
// something unknown sits where unread mail would, so the folder is kept.
function countWaiting(ctx: StoreContext, path: string): number | undefined {
  const folder = checkFolder(ctx.fs, path);
  if (failedWith(folder, "ENOENT")) return 0;
  if (folder.isErr()) return folder.error.kind === "not-a-folder" ? 1 : undefined;
  const listed = listEntries(ctx.fs, path, folderEntriesMax);
  return listed.isOk() ? listed.value.entries.length : undefined;
}

/** Removes a real address folder and everything in it; links inside are removed, never followed.
 * A folder already gone counts as removed; a link or a file in its place is refused. */
export function removeBox(ctx: StoreContext, address: Address): Result<void, StoreError> {
  const folder = addressFolder(ctx, address);
  if (address === runningFolderName) return err(notAFolder(folder));
  const checked = checkFolder(ctx.fs, folder);
  if (failedWith(checked, "ENOENT")) return ok(undefined);
  if (checked.isErr()) return err(checked.error);
  return attempt("rm", folder, () => ctx.fs.rmSync(folder, { recursive: true, force: true }));
}
