// Paths inside the mail root. An address becomes a path segment only here, after validation.
import { err, ok, type Result } from "neverthrow";
import { type Address, isAddress } from "../../../domain/mail/address.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { notAFolder } from "../shared/fs-errors.js";
import { checkFolder, ensureFolder } from "../shared/fs-files.js";
import type { FsLike, FsStats } from "../shared/fs-like.js";
import { ownFolder } from "../shared/fs-path-safety.js";

export type Box = "tmp" | "new" | "cur" | "sent";
export const allBoxes: readonly Box[] = ["tmp", "new", "cur", "sent"];
/** The folder of running records: named like an address, so never used as one. */
export const runningFolderName = "running";

export interface FsMailContext {
  fs: FsLike;
  /** The mail root without a trailing slash. */
  root: string;
  /** This user: the owner every folder in the mail root must have. */
  uid: number;
  /** The root as openRoot found it: a root with another identity since was swapped. */
  rootIdentity: { dev: number; ino: number } | undefined;
  /** The root was given as a link of this user's: where the link is and what it says (`root` is
   * then the folder it leads to). */
  rootLink: { path: string; target: string } | undefined;
  /** fsync new/ after publishing durable mail. */
  syncDirs: boolean;
  /** Claim journals kept open by address, until the session releases its box. */
  journals: Map<string, KeptJournal>;
  /** Addresses whose cur/ was found a real folder since their last listing of new/. */
  curChecked: Set<string>;
}

/** A claim journal kept open for writes in place: the file it was when opened, and its page. */
export interface KeptJournal {
  fd: number;
  /** Where it was opened. */
  path: string;
  dev: number;
  ino: number;
  /** What the file holds: the last names written, padded with spaces to one page. */
  page: Uint8Array;
  /** Bytes of the page before its padding. */
  used: number;
}

/** Addresses are branded, but a string cast to one would reach the filesystem: check again. */
export function addressFolder(disk: FsMailContext, address: string): string {
  if (!isAddress(address)) throw new Error(`not an address: ${JSON.stringify(address)}`);
  return `${disk.root}/${address}`;
}

export function boxFolder(disk: FsMailContext, address: Address, box: Box): string {
  return `${addressFolder(disk, address)}/${box}`;
}

/** The address folder and the named boxes, created (0700) when missing, each a real folder. */
export function ensureBox(disk: FsMailContext, address: Address, boxes: readonly Box[]): Result<FsStats, StoreError> {
  return walkBox(disk, address, boxes, ensureFolder);
}

/** The address folder and the named boxes exist and are real folders (ENOENT when missing). */
export function checkBox(disk: FsMailContext, address: Address, boxes: readonly Box[]): Result<FsStats, StoreError> {
  return walkBox(disk, address, boxes, checkFolder);
}

function walkBox(
  disk: FsMailContext,
  address: Address,
  boxes: readonly Box[],
  visit: (fs: FsLike, path: string) => Result<FsStats, StoreError>,
): Result<FsStats, StoreError> {
  const folder = addressFolder(disk, address);
  // running/ holds the records; mail addressed to "running" must not turn it into a mailbox.
  if (address === runningFolderName) return err(notAFolder(folder));
  const top = visit(disk.fs, folder).andThen((stats) => ownFolder(folder, stats, disk.uid));
  if (top.isErr()) return top;
  for (const box of boxes) {
    const path = `${folder}/${box}`;
    const inner = visit(disk.fs, path).andThen((stats) => ownFolder(path, stats, disk.uid));
    if (inner.isErr()) return inner;
  }
  return ok(top.value);
}

/** checkFolder, and the folder is this user's. */
export function checkOwnFolder(disk: FsMailContext, path: string): Result<FsStats, StoreError> {
  return checkFolder(disk.fs, path).andThen((stats) => ownFolder(path, stats, disk.uid));
}

/** ensureFolder, and the folder is this user's. */
export function ensureOwnFolder(disk: FsMailContext, path: string): Result<FsStats, StoreError> {
  return ensureFolder(disk.fs, path).andThen((stats) => ownFolder(path, stats, disk.uid));
}
