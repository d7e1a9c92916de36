// The few synchronous node:fs calls the stores make. node:fs satisfies it as is; memfs through
// a thin wrapper (adapters/memory/memory-fs.ts) that makes it behave like Linux where we rely on it.

/** What the stores read from lstat/fstat. */
export interface FsStats {
  readonly mode: number;
  readonly size: number;
  readonly mtimeMs: number;
  /** Hard links to the inode: a journal with more than one is not ours to write in place. */
  readonly nlink: number;
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
  lstatSync(path: string): FsStats;
  renameSync(oldPath: string, newPath: string): void;
  unlinkSync(path: string): void;
  mkdirSync(path: string, options: { mode: number; recursive?: boolean }): unknown;
  chmodSync(path: string, mode: number): void;
  readdirSync(path: string, options: { withFileTypes: true }): FsDirent[];
  /** Names only: no entry objects, the cheap listing of a big inbox. */
  readdirSync(path: string): string[];
  rmSync(path: string, options: { recursive: true; force: boolean }): void;
}
