import { type BigIntStats, closeSync, constants, lstatSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { gitLinkBytesMax } from "../../domain/bus/limits.js";
import type { FileIdentity, NameFolding, RealPaths } from "../../ports/bus/real-paths.js";

/** realpath(3) itself (.native: one system call, where the JS version lstats each segment): every
 * link resolved; undefined when nothing exists at the path (or it cannot be read). A claim's path
 * often does not exist yet and is walked up from: a stat that answers "not there" without throwing
 * comes first, since each thrown error costs more than the system call. */
function realpath(path: string): string | undefined {
  try {
    const stats = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    const real = realpathSync.native(path);
    remember(real, stats);
    return real;
  } catch {
    return undefined;
  }
}

/** The stat realpath took, kept for the identity of the path it returned until the current run of
 * code ends: a resolution asks for both in one go (the check before an edit, in two system calls
 * instead of three), and no later call reuses it. */
let lastStat: { path: string; stats: BigIntStats } | undefined;

function remember(path: string, stats: BigIntStats): void {
  if (lastStat === undefined) queueMicrotask(() => (lastStat = undefined));
  lastStat = { path, stats };
}

/** bigint: an inode number may pass 2^53 (XFS, btrfs, NFS), and two files must never read as one. */
function identity(path: string): FileIdentity | undefined {
  try {
    const stats = lastStat?.path === path ? lastStat.stats : statSync(path, { bigint: true, throwIfNoEntry: false });
    return stats === undefined ? undefined : { id: `${stats.dev}-${stats.ino}`, folder: stats.isDirectory() };
  } catch {
    return undefined;
  }
}

/** A `.git` folder is the git dir itself (a main checkout's); a `.git` file says `gitdir: <path>`
 * (a linked worktree's, relative to the folder when not absolute). Only a regular file is read,
 * without following a link or waiting on a FIFO put there, and only so far. */
function gitDirOf(folder: string): string | undefined {
  const dotGit = `${folder}/.git`;
  try {
    const stats = lstatSync(dotGit, { throwIfNoEntry: false });
    if (stats === undefined) return undefined;
    if (stats.isDirectory()) return realpathSync.native(dotGit);
    if (!stats.isFile()) return undefined;
    const named = /^gitdir: *(.+?)\s*$/m.exec(readHead(dotGit))?.[1];
    if (named === undefined) return undefined;
    return realpathSync.native(named.startsWith("/") ? named : `${folder}/${named}`);
  } catch {
    return undefined;
  }
}

function readHead(path: string): string {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const buffer = Buffer.alloc(gitLinkBytesMax);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return buffer.toString("utf8", 0, read);
  } finally {
    closeSync(fd);
  }
}

const sameFile = (a: FileIdentity | undefined, b: FileIdentity | undefined): boolean =>
  a !== undefined && b !== undefined && a.id === b.id;

/** Case folds when an existing name spelled in the other case is the same file: the folder's
 * `.git` (in the repository's own file system), else the folder's last name that has letters (in
 * its parent's). A folder with neither is taken as exact. macOS's file systems (APFS, HFS+) name
 * one file by every Unicode normalization of its name, whichever way they treat case. */
function nameFolding(folder: string): NameFolding {
  const caseFolds = foldsCase(folder);
  return { caseFolds, normalizes: caseFolds || process.platform === "darwin" };
}

function foldsCase(folder: string): boolean {
  const dotGit = identity(`${folder}/.git`);
  if (dotGit !== undefined) return sameFile(dotGit, identity(`${folder}/.GIT`));
  const names = folder.split("/");
  for (let at = names.length - 1; at > 0; at--) {
    const name = names[at] as string;
    const swapped = swapCase(name);
    if (swapped === name) continue;
    const spelled = [...names.slice(0, at), swapped, ...names.slice(at + 1)].join("/");
    return sameFile(identity(folder), identity(spelled));
  }
  return false;
}

function swapCase(name: string): string {
  let out = "";
  for (const char of name) {
    const upper = char.toUpperCase();
    out += upper === char ? char.toLowerCase() : upper;
  }
  return out;
}

export const nodeRealPaths: RealPaths = { realpath, identity, gitDirOf, nameFolding };
