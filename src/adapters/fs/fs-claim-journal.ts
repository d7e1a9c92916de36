// `<address>/claiming.json`: the names a scan is about to claim, so a restart finishes delivering them.
import { err, ok, type Result } from "neverthrow";
import { envelopeFileBytesMax, folderEntriesMax } from "../../domain/limits.js";
import type { Address } from "../../domain/mail/address.js";
import { encodeUtf8 } from "../../domain/text/utf8.js";
import type { StoreError } from "../../ports/mail-store.js";
import { addressFolder, checkBox, ensureBox, runningFolderName, type StoreContext } from "./fs-boxes.js";
import { attempt, failedWith, notAFolder } from "./fs-errors.js";
import {
  assertEntryName,
  checkFolder,
  isEntryName,
  readEntry,
  removeQuietly,
  writeAll,
  writeAtomic,
} from "./fs-files.js";
import type { FsLike } from "./fs-like.js";

const journalName = "claiming.json";
/** A shorter journal is padded up to this size rather than cut (cutting frees blocks). */
const journalPadBytesMax = 4096;
/** In tmp/ so that a crashed writer's leftover is swept like any other. */
const journalTmpName = "claiming.json.tmp";

export function writeClaimJournal(
  ctx: StoreContext,
  address: Address,
  names: readonly string[],
): Result<void, StoreError> {
  for (const name of names) assertEntryName(name);
  // running/ holds the records: a journal there would make it look like a mailbox.
  if (address === runningFolderName)
    return names.length === 0 ? ok(undefined) : err(notAFolder(addressFolder(ctx, address)));
  const path = `${addressFolder(ctx, address)}/${journalName}`;
  const text = JSON.stringify(names);
  const kept = ctx.journals.get(address);
  if (kept !== undefined) {
    // The file kept open since the last write: one fstat and one write, no open, no close.
    if (writeOpen(ctx.fs, kept, path, text).isOk()) return ok(undefined);
    closeClaimJournal(ctx, address);
  }
  // An empty journal where there is none needs no file (and no box folder made for it).
  let inPlace = openInPlace(ctx, address, path, text, names.length > 0);
  if (inPlace.isOk() || (names.length === 0 && failedWith(inPlace, "ENOENT"))) return ok(undefined);
  if (failedWith(inPlace, "ELOOP") || failedWith(inPlace, "EINVAL")) {
    // A link (or FIFO, socket) where the journal belongs: remove the entry itself, never its target.
    removeQuietly(ctx.fs, path);
    inPlace = openInPlace(ctx, address, path, text, true);
    if (inPlace.isOk()) return inPlace;
  }
  // Missing folder, or a link, FIFO or folder where the journal belongs: replace it atomically.
  const write = () =>
    writeAtomic(ctx.fs, {
      tmpPath: `${addressFolder(ctx, address)}/tmp/${journalTmpName}`,
      finalPath: path,
      text,
      // A journal guards against a crashed process, not a crashed machine: the rename is enough.
      durable: false,
      syncFolder: undefined,
      replaceLeftover: true,
    });
  // The temp file is created in tmp/: one lstat first, since through a tmp/ swapped for a link it
  // would be created outside the mail root. tmp/ is made only when it is missing.
  const tmp = checkFolder(ctx.fs, `${addressFolder(ctx, address)}/tmp`);
  if (failedWith(tmp, "ENOENT")) return ensureBox(ctx, address, ["tmp"]).andThen(write);
  return tmp.andThen(write);
}

/** Closes the journal file a session kept open (at its shutdown); a later write opens it again. */
export function closeClaimJournal(ctx: StoreContext, address: Address): void {
  const kept = ctx.journals.get(address);
  if (kept === undefined) return;
  ctx.journals.delete(address);
  attempt("close", journalName, () => ctx.fs.closeSync(kept));
}

/** The journal is rewritten before every claim, so it is written in place through a file kept
 * open: on ext4 a create after a delete (what a temp file renamed over the old journal costs) takes
 * about a millisecond, and even an open and a close are most of the rest. */
function openInPlace(
  ctx: StoreContext,
  address: Address,
  path: string,
  text: string,
  create: boolean,
): Result<void, StoreError> {
  const { O_WRONLY, O_CREAT, O_NOFOLLOW, O_NONBLOCK } = ctx.fs.constants;
  const flags = O_WRONLY | O_NOFOLLOW | O_NONBLOCK | (create ? O_CREAT : 0);
  const opened = attempt("open", path, () => ctx.fs.openSync(path, flags, 0o600));
  if (opened.isErr()) return err(opened.error);
  const fd = opened.value;
  const written = writeOpen(ctx.fs, fd, path, text);
  if (written.isOk()) ctx.journals.set(address, fd);
  else attempt("close", path, () => ctx.fs.closeSync(fd));
  return written;
}

/** A shorter text is padded with spaces over the old one within the first block (JSON allows
 * trailing spaces), so no block is freed either; beyond that the file is cut. The fstat finds a
 * journal someone removed, replaced or hard-linked since it was opened: that file is no longer the
 * journal (or could be reached from outside the mail root), so the write fails and the caller
 * opens the journal anew. */
function writeOpen(fs: FsLike, fd: number, path: string, text: string): Result<void, StoreError> {
  return attempt("fstat", path, () => fs.fstatSync(fd)).andThen((stats) => {
    if (!stats.isFile() || stats.nlink !== 1) {
      return err<void, StoreError>({ kind: "io", op: "open", path, code: "EINVAL", message: "not a file of its own" });
    }
    let bytes = encodeUtf8(text);
    if (bytes.length < stats.size && stats.size <= journalPadBytesMax) {
      const padded = new Uint8Array(stats.size).fill(0x20);
      padded.set(bytes);
      bytes = padded;
    }
    return writeAll(fs, fd, path, bytes, 0).andThen(() =>
      bytes.length < stats.size ? attempt("ftruncate", path, () => fs.ftruncateSync(fd, bytes.length)) : ok(undefined),
    );
  });
}

/** A missing, unreadable or malformed journal reads as empty: a bad journal must never stop the
 * session. Names that could not be mail (dot-files, paths) are dropped. Only errno failures are errors. */
export function readClaimJournal(ctx: StoreContext, address: Address): Result<string[], StoreError> {
  const checked = checkBox(ctx, address, []);
  if (failedWith(checked, "ENOENT")) return ok([]);
  if (checked.isErr()) return err(checked.error);
  const path = `${addressFolder(ctx, address)}/${journalName}`;
  return readEntry(ctx.fs, path, envelopeFileBytesMax).map((found) =>
    found.kind === "text" ? parseJournal(found.text) : [],
  );
}

function parseJournal(text: string): string[] {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(raw)) return [];
  const names = raw.filter((name): name is string => typeof name === "string" && isEntryName(name));
  return names.slice(0, folderEntriesMax);
}
