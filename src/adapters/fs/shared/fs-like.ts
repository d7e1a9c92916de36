// The few synchronous node:fs calls the stores make. node:fs satisfies it as is; memfs through
// a thin wrapper (adapters/memory/memory-fs.ts) that makes it behave like Linux where we rely on it.

/** What the stores read from lstat/fstat. */
export interface FsStats {
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Hard links to the inode: a journal with more than one is not ours to write in place. */
  readonly nlink: number;
  /** Device and inode: the identity of a file or folder, to tell one kept open from the one at a path now. */
  readonly dev: number;
  readonly ino: number;
  /** The owner: mail folders must be this user's, and the folders above the root this user's or root's. */
  readonly uid: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** A folder entry as `readdirSync(path, { withFileTypes: true })` returns it (type without following links). */
export interface FsDirent {
  readonly name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

/** An open folder read one entry at a time, so a listing can stop at its bound. */
interface FsDir {
  /** The next entry, or null at the end. */
  readSync(): FsDirent | null;
  closeSync(): void;
}

/** The open(2) flags the stores use; the numeric values are the platform's. */
export interface FsConstants {
  readonly O_RDONLY: number;
  readonly O_WRONLY: number;
  readonly O_CREAT: number;
  readonly O_EXCL: number;
  readonly O_NOFOLLOW: number;
  readonly O_NONBLOCK: number;
  readonly O_DIRECTORY: number;
}

/** Every method throws a node-style error carrying an errno `code` (ENOENT, EEXIST, …). */
export interface FsLike {
  readonly constants: FsConstants;
  openSync(path: string, flags: number, mode?: number): number;
  closeSync(fd: number): void;
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number;
  fsyncSync(fd: number): void;
  ftruncateSync(fd: number, length: number): void;
  fstatSync(fd: number): FsStats;
  /** Sets an open file's times (a heartbeat that never makes a file a prune removed). */
  futimesSync(fd: number, atime: Date, mtime: Date): void;
  lstatSync(path: string): FsStats;
  renameSync(oldPath: string, newPath: string): void;
  unlinkSync(path: string): void;
  /** A second name for a file; fails with EEXIST when the new name is taken (an exclusive publish). */
  linkSync(existingPath: string, newPath: string): void;
  mkdirSync(path: string, options: { mode: number; recursive?: boolean }): unknown;
  chmodSync(path: string, mode: number): void;
  /** chmod of what `fd` is open on: a folder opened without following links cannot be swapped
   * for a link between the check and the change. */
  fchmodSync(fd: number, mode: number): void;
  readdirSync(path: string, options: { withFileTypes: true }): FsDirent[];
  /** Names only: no entry objects, the cheap listing of a big inbox. */
  readdirSync(path: string): string[];
  /** A folder read entry by entry: readdir reads a whole folder (100,000 names take 80–170 ms here). */
  opendirSync(path: string): FsDir;
  rmSync(path: string, options: { recursive: true; force: boolean }): void;
  /** A link's target as written in it: the path check follows links one at a time, judging each. */
  readlinkSync(path: string): string;
  /** The canonical absolute path, every link resolved (ENOENT when any part is missing). */
  realpathSync(path: string): string;
}
