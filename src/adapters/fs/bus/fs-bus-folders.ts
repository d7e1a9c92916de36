// The bus folder's paths and folder checks. An id becomes a path segment only here, after validation,
// and every folder is lstat-checked (a real folder, this user's) before a path goes through it: a
// folder swapped for a link is refused, never followed out of the bus folder.
import { err, ok, type Result } from "neverthrow";
import type { ClaimName } from "../../../domain/bus/bus-files.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { checkFolder, ensureFolder } from "../shared/fs-files.js";
import type { FsDirent, FsLike, FsStats } from "../shared/fs-like.js";
import { ownFolder } from "../shared/fs-path-safety.js";

export interface BusContext {
  fs: FsLike;
  /** The bus folder of one repository, without a trailing slash (its real path once opened). */
  root: string;
  /** This user: the owner of every folder in the bus folder. */
  uid: number;
  /** Unique temp names. */
  entropy: Entropy;
  /** Claim names decoded before (a name is never reused, so what it decodes to never changes): a
   * claim lists claims/ twice, and decoding every name again was most of a listing's cost. */
  decodedClaims: Map<string, ClaimName | undefined>;
}

type BusFolder = "sessions" | "inbox" | "claims" | "tmp";
export const busFolders: readonly BusFolder[] = ["sessions", "inbox", "claims", "tmp"];

export function folderPath(ctx: BusContext, folder: BusFolder): string {
  return `${ctx.root}/${folder}`;
}

/** Ids are checked by the codecs, but a string that reaches a path is checked again: a bad one is a bug. */
function assertBusId(id: string): void {
  if (!isBusId(id)) throw new Error(`not a bus id: ${JSON.stringify(id)}`);
}

export function inboxFolder(ctx: BusContext, id: string): string {
  assertBusId(id);
  return `${folderPath(ctx, "inbox")}/${id}`;
}

export function recordPath(ctx: BusContext, id: string): string {
  assertBusId(id);
  return `${folderPath(ctx, "sessions")}/${id}.json`;
}

/** A fresh name in tmp/: `<what>~<uuid>` (plus a suffix), unique per call. */
export function tmpName(ctx: BusContext, what: string, suffix = ""): string {
  return `${folderPath(ctx, "tmp")}/${what}~${ctx.entropy.uuid()}${suffix}`;
}

/** The folder is a real folder of this user's (ENOENT when missing). */
function checkOwn(ctx: BusContext, path: string): Result<FsStats, StoreError> {
  return checkFolder(ctx.fs, path).andThen((stats) => ownFolder(path, stats, ctx.uid));
}

/** Like checkOwn, and a missing folder is made (0700). */
export function ensureOwn(ctx: BusContext, path: string): Result<FsStats, StoreError> {
  return ensureFolder(ctx.fs, path).andThen((stats) => ownFolder(path, stats, ctx.uid));
}

/** checkOwn where a missing folder is an empty one: `false` when it is not there. */
export function folderThere(ctx: BusContext, path: string): Result<boolean, StoreError> {
  const seen = checkOwn(ctx, path);
  if (failedWith(seen, "ENOENT")) return ok(false);
  return seen.map(() => true);
}

/** Visits a folder's entries one at a time, in the directory's order, at most `entriesMax`; dot-files
 * are never visited (no reader here takes one for data). Streamed, so a huge folder costs at most
 * the bound in memory. Returns whether entries were left unread. */
export function scanFolder(
  fs: FsLike,
  path: string,
  entriesMax: number,
  visit: (entry: FsDirent) => void,
): Result<boolean, StoreError> {
  const opened = attempt("opendir", path, () => fs.opendirSync(path));
  if (opened.isErr()) return err(opened.error);
  const dir = opened.value;
  const scanned = attempt("readdir", path, () => {
    for (let seen = 0; ; seen++) {
      const entry = dir.readSync();
      if (entry === null) return false;
      if (seen >= entriesMax) return true;
      if (!entry.name.startsWith(".")) visit(entry);
    }
  });
  // A failed close changes nothing about what was read.
  attempt("closedir", path, () => dir.closeSync());
  return scanned;
}

/** lstat that tells a vanished entry (undefined) from a failure. */
export function lstatIfThere(fs: FsLike, path: string): Result<FsStats | undefined, StoreError> {
  const seen = attempt("lstat", path, () => fs.lstatSync(path));
  return failedWith(seen, "ENOENT") ? ok(undefined) : seen;
}

/** Unlink where an entry already gone counts as removed; `true` when this call removed it. */
export function unlinkIfThere(fs: FsLike, path: string): Result<boolean, StoreError> {
  const gone = attempt("unlink", path, () => fs.unlinkSync(path));
  return failedWith(gone, "ENOENT") ? ok(false) : gone.map(() => true);
}
