// `<address>/claiming.json`: the names a scan is about to claim, so a restart finishes delivering them.
import { err, ok, type Result } from "neverthrow";
import type { Address } from "../../../domain/mail/address.js";
import { journalBytesMax, journalNamesMax } from "../../../domain/mail/limits.js";
import { encodeUtf8, encodeUtf8Into } from "../../../domain/shared/text/utf8.js";
import type { ClaimJournal } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith, hasCode, ioError, notAFolder } from "../shared/fs-errors.js";
import { assertEntryName, checkFolder, isEntryName, writeAll, writeAtomic } from "../shared/fs-files.js";
import type { FsLike, FsStats } from "../shared/fs-like.js";
import { readEntry } from "../shared/fs-read.js";
import {
  addressFolder,
  checkBox,
  ensureBox,
  type FsMailContext,
  type KeptJournal,
  runningFolderName,
} from "./fs-boxes.js";

const journalName = "claiming.json";
/** One page. A journal that fits is padded to exactly this size, and a write of one page at offset 0
 * over a file of that size needs no new block (a full disk cannot cut it short) and is never cut by
 * a signal: it cannot tear, so it is written in place. A bigger journal goes through a temp file. */
const journalBlockBytes = 4096;
/** In tmp/ so that a crashed writer's leftover is swept like any other. */
const journalTmpName = "claiming.json.tmp";

export function writeClaimJournal(
  disk: FsMailContext,
  address: Address,
  names: readonly string[],
): Result<void, StoreError> {
  for (const name of names) assertEntryName(name);
  if (names.length > journalNamesMax) throw new Error(`a claim journal of ${names.length} names is over its bound`);
  const text = JSON.stringify(names);
  // Each character is a byte at least: a longer text cannot fit one page.
  const mayFit = text.length <= journalBlockBytes;
  const kept = disk.journals.get(address);
  if (kept !== undefined) {
    // The file kept open since the last write (its address checked when it was opened): one lstat
    // and one write, no open, no close. This write precedes every claim.
    const written = mayFit ? overwrite(disk.fs, kept, text) : "refused";
    if (written !== "refused" && written.isOk()) return written;
    // Refused or failed: the journal is opened anew, or replaced whole.
    closeClaimJournal(disk, address);
  }
  // running/ holds the records: a journal there would make it look like a mailbox.
  if (address === runningFolderName)
    return names.length === 0 ? ok(undefined) : err(notAFolder(addressFolder(disk, address)));
  const path = `${addressFolder(disk, address)}/${journalName}`;
  if (mayFit) {
    const reopened = reopen(disk, address, path, text);
    if (reopened.isOk()) return reopened;
    // An empty journal where there is none needs no file (and no box folder made for it).
    if (names.length === 0 && failedWith(reopened, "ENOENT")) return ok(undefined);
  }
  return replace(disk, address, path, text);
}

/** Closes the journal file a session kept open (at its shutdown); a later write opens it again. */
export function closeClaimJournal(disk: FsMailContext, address: Address): void {
  const kept = disk.journals.get(address);
  if (kept === undefined) return;
  disk.journals.delete(address);
  attempt("close", journalName, () => disk.fs.closeSync(kept.fd));
}

/** The journal is rewritten before every claim, so it is written in place through a file kept
 * open: on ext4 a create after a delete (what a temp file renamed over the old journal costs) takes
 * about a millisecond, and even an open and a close are most of the rest. The open file must be a
 * file of its own (a link could reach outside the mail root) of exactly one padded page (a longer
 * one would keep its tail); a write in place is refused otherwise, and the caller replaces it. */
function reopen(disk: FsMailContext, address: Address, path: string, text: string): Result<void, StoreError> {
  const { O_WRONLY, O_NOFOLLOW, O_NONBLOCK } = disk.fs.constants;
  const opened = attempt("open", path, () => disk.fs.openSync(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK));
  if (opened.isErr()) return err(opened.error);
  const fd = opened.value;
  const seen = attempt("fstat", path, () => disk.fs.fstatSync(fd));
  const kept = seen.isOk() && isPaddedPage(seen.value) ? keptJournal(fd, path, seen.value) : undefined;
  const written = kept === undefined ? notOurs(path) : overwrite(disk.fs, kept, text);
  if (written === "refused" || written.isErr()) {
    attempt("close", path, () => disk.fs.closeSync(fd));
    return written === "refused" ? notOurs(path) : written;
  }
  disk.journals.set(address, kept!);
  return written;
}

function isPaddedPage(stats: FsStats): boolean {
  return stats.isFile() && stats.nlink === 1 && stats.size === journalBlockBytes;
}

function keptJournal(fd: number, path: string, stats: FsStats): KeptJournal {
  // Unknown until the first write: all of it is padding to fill.
  return {
    fd,
    path,
    dev: stats.dev,
    ino: stats.ino,
    page: new Uint8Array(journalBlockBytes).fill(0x20),
    used: journalBlockBytes,
  };
}

function notOurs(path: string): Result<void, StoreError> {
  return err({ kind: "io", op: "open", path, code: "EINVAL", message: "not a padded journal of its own" });
}

/** One page written over one page, through the file kept open. Refused when the names do not fit
 * the page, or when `path` no longer names that file, a padded page with no other link (the journal
 * was replaced, linked, or its address folder moved or restored since it was opened). One lstat
 * tells all of it: the file at the path is the open one exactly when device and inode match. */
function overwrite(fs: FsLike, kept: KeptJournal, text: string): Result<void, StoreError> | "refused" {
  const path = kept.path;
  let stats: FsStats;
  try {
    stats = fs.lstatSync(path);
  } catch (thrown) {
    const error = ioError("lstat", path, thrown);
    return hasCode(error, "ENOENT") ? "refused" : err(error);
  }
  if (stats.ino !== kept.ino || stats.dev !== kept.dev || !isPaddedPage(stats)) return "refused";
  const used = encodeUtf8Into(text, kept.page);
  if (used === undefined) {
    // The page holds part of the text now: the caller closes this journal and replaces it.
    kept.used = journalBlockBytes;
    return "refused";
  }
  if (used < kept.used) kept.page.fill(0x20, used, kept.used);
  kept.used = used;
  const written = writeAll(fs, kept.fd, path, kept.page, 0);
  // A write that failed may have left part of the page: what the file holds is unknown.
  if (written.isErr()) kept.used = journalBlockBytes;
  return written;
}

/** JSON allows trailing whitespace: every reader parses the padded text as the names alone. */
function padded(bytes: Uint8Array): Uint8Array {
  if (bytes.length >= journalBlockBytes) return bytes;
  const page = new Uint8Array(journalBlockBytes).fill(0x20);
  page.set(bytes);
  return page;
}

/** Temp file and rename: the old journal stays whole until the new one replaces it, and stays on
 * any error (a full disk fails the write of the temp file, never the journal). A folder where the
 * journal belongs (left by a hostile process) is moved aside, so claims do not stop for good. */
function replace(disk: FsMailContext, address: Address, path: string, text: string): Result<void, StoreError> {
  const folder = addressFolder(disk, address);
  const bytes = encodeUtf8(text);
  const write = () =>
    writeAtomic(disk.fs, {
      tmpPath: `${folder}/tmp/${journalTmpName}`,
      finalPath: path,
      text: padded(bytes),
      // A journal guards against a crashed process, not a crashed machine: the rename is enough.
      durable: false,
      syncFolder: undefined,
      replaceLeftover: true,
    });
  // The temp file is created in tmp/: one lstat first, since through a tmp/ swapped for a link it
  // would be created outside the mail root. tmp/ is made only when it is missing.
  const tmp = checkFolder(disk.fs, `${folder}/tmp`);
  const ready = failedWith(tmp, "ENOENT") ? ensureBox(disk, address, ["tmp"]) : tmp;
  if (ready.isErr()) return err(ready.error);
  let written = write();
  if (written.isErr() && isFolderInTheWay(disk.fs, path)) {
    moveAside(disk.fs, path);
    written = write();
  }
  if (written.isErr()) return err(written.error);
  // A journal of one page is kept open for the next write in place.
  if (bytes.length <= journalBlockBytes) reopen(disk, address, path, text);
  return ok(undefined);
}

function isFolderInTheWay(fs: FsLike, path: string): boolean {
  const seen = attempt("lstat", path, () => fs.lstatSync(path));
  return seen.isOk() && seen.value.isDirectory();
}

/** Renamed, never removed: a folder someone put there may hold anything, and the owner decides. */
function moveAside(fs: FsLike, path: string): void {
  const seen = attempt("lstat", path, () => fs.lstatSync(path));
  if (seen.isErr()) return;
  attempt("rename", path, () => fs.renameSync(path, `${path}.aside-${seen.value.ino}`));
}

/** The names the journal lists. A missing journal lists none. One that cannot be read as a journal
 * (not JSON, not a list, over its bound, a link or a folder) lists none but says why, so that its
 * folder is never pruned as empty and the session can say that recovery may be incomplete. Names
 * that could not be mail (dot-files, paths) are dropped. Only errno failures are errors. */
export function readClaimJournal(disk: FsMailContext, address: Address): Result<ClaimJournal, StoreError> {
  const checked = checkBox(disk, address, []);
  if (failedWith(checked, "ENOENT")) return ok({ names: [], damaged: undefined });
  if (checked.isErr()) return err(checked.error);
  return readJournalIn(disk.fs, addressFolder(disk, address));
}

/** The journal of the address folder at `folder` (a folder being pruned is no longer at its address). */
export function readJournalIn(fs: FsLike, folder: string): Result<ClaimJournal, StoreError> {
  return readEntry(fs, `${folder}/${journalName}`, journalBytesMax).map((found): ClaimJournal => {
    switch (found.kind) {
      case "gone":
        return { names: [], damaged: undefined };
      case "set-aside":
        return { names: [], damaged: found.reason };
      case "text":
        return parseJournal(found.text);
      default: {
        const never: never = found;
        return never;
      }
    }
  });
}

function parseJournal(text: string): ClaimJournal {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { names: [], damaged: "not JSON" };
  }
  if (!Array.isArray(raw)) return { names: [], damaged: "not a list" };
  const names = raw.filter((name): name is string => typeof name === "string" && isEntryName(name));
  return { names: names.slice(0, journalNamesMax), damaged: undefined };
}
