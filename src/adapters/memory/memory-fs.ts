import { createFsFromVolume, Volume } from "memfs";
import type { FsConstants, FsDirent, FsLike, FsStats } from "../fs/shared/fs-like.js";

// memfs 4 differs from Linux in ways the stores could notice. Each one, and what this wrapper does:
// - umask: memfs applies none, so a mode is kept as given (node applies the process umask). The
//   stores always pass 0700/0600 and chmod folders they create, so both end at the same modes.
// - rename of a symlink: memfs follows it and moves the link's TARGET, leaving the link behind;
//   Linux moves the link itself. A claim renames whatever sits in new/ and must never touch a file
//   outside the root, so renameSync below moves a link by re-creating it (readlink, symlink,
//   unlink): not atomic, but memfs is synchronous and nothing runs in between.
// - rename over a folder: memfs replaces a directory with a file, and a non-empty directory with a
//   directory; Linux refuses (EISDIR, ENOTEMPTY, ENOTDIR). renameSync checks first and throws like
//   Linux, because a claim renames into cur/ and must not swallow a folder someone left there.
// - constants: a Volume has no `constants`; memfs's own (Linux values) are the ones it understands.
// - readdir names may be typed as Buffer; they are always strings here (no `encoding` option).
// - O_NOFOLLOW (ELOOP), O_EXCL on a symlink (EEXIST), O_DIRECTORY, opening and fsyncing a folder
//   behave as on Linux already; O_NONBLOCK is ignored, which is harmless: memfs has no FIFOs.
// - no FIFOs or sockets at all: those cases are tested on node fs only.
// - fstat of an open file whose name was removed (rmSync) or renamed over: memfs still counts the
//   link; fstatSync reports nlink 0 like Linux when the path it was opened by names another inode
//   (a second hard link keeps its count, which is all the stores look at).
// - "/" is created 0777, and raw vol.mkdirSync without a mode makes 0777 folders (no umask): the
//   path check refuses both as folders above the root that others may write. The wrapper sets "/"
//   to 0755 as on Linux; tests that arrange folders by hand give them a mode.
// - uid 0 has no superuser powers: memfs checks permissions for everyone, so a folder chowned to
//   another uid to stand for someone else's must stay searchable (0755) for the stores to look inside.
// - dev is always 0 and a removed node's ino is reused by the next one created: a root identity is
//   the ino alone here, which still tells a swapped root (the moved one keeps its ino alive).

type SystemError = Error & { code: string; syscall: string; path: string };

function linuxError(code: string, syscall: string, path: string, text: string): SystemError {
  return Object.assign(new Error(`${code}: ${text}, ${syscall} '${path}'`), { code, syscall, path });
}

function statsOf(
  s: {
    mode: number | bigint;
    size: number | bigint;
    mtimeMs: number | bigint;
    nlink: number | bigint;
    dev: number | bigint;
    ino: number | bigint;
    uid: number | bigint;
  } & FsTypeTests,
): FsStats {
  return {
    mode: Number(s.mode),
    size: Number(s.size),
    mtimeMs: Number(s.mtimeMs),
    nlink: Number(s.nlink),
    dev: Number(s.dev),
    ino: Number(s.ino),
    uid: Number(s.uid),
    isFile: () => s.isFile(),
    isDirectory: () => s.isDirectory(),
    isSymbolicLink: () => s.isSymbolicLink(),
  };
}

interface FsTypeTests {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

function lstatOrUndefined(vol: Volume, path: string): FsStats | undefined {
  try {
    return statsOf(vol.lstatSync(path));
  } catch (e) {
    if ((e as { code?: unknown }).code === "ENOENT") return undefined;
    throw e;
  }
}

// Linux fstat(2) counts the links the open file has now: 0 once its name was removed or renamed
// over. memfs counts an unlink, but not a removal by rmSync nor a rename over the file.
function fstatLikeLinux(vol: Volume, fd: number, openedAs: string | undefined): FsStats {
  const raw = vol.fstatSync(fd);
  const stats = statsOf(raw);
  if (openedAs === undefined || stats.nlink !== 1) return stats;
  let now: { ino: number | bigint } | undefined;
  try {
    now = vol.lstatSync(openedAs);
  } catch {
    now = undefined;
  }
  return now !== undefined && Number(now.ino) === Number(raw.ino) ? stats : { ...stats, nlink: 0 };
}

// Linux rename(2): a directory replaces only an empty directory, a non-directory only a non-directory.
function renameLikeLinux(vol: Volume, oldPath: string, newPath: string): void {
  const from = lstatOrUndefined(vol, oldPath);
  const to = from === undefined ? undefined : lstatOrUndefined(vol, newPath);
  if (from !== undefined && to !== undefined && oldPath !== newPath) {
    if (to.isDirectory() && !from.isDirectory()) throw linuxError("EISDIR", "rename", newPath, "is a directory");
    if (from.isDirectory() && !to.isDirectory()) throw linuxError("ENOTDIR", "rename", newPath, "not a directory");
    if (from.isDirectory() && vol.readdirSync(newPath).length > 0) {
      throw linuxError("ENOTEMPTY", "rename", newPath, "directory not empty");
    }
  }
  if (from?.isSymbolicLink() && oldPath !== newPath) moveLink(vol, oldPath, newPath, to);
  else vol.renameSync(oldPath, newPath);
}

function moveLink(vol: Volume, oldPath: string, newPath: string, to: FsStats | undefined): void {
  const target = String(vol.readlinkSync(oldPath));
  if (to !== undefined) vol.unlinkSync(newPath); // rename replaces a non-folder in its way
  vol.symlinkSync(target, newPath);
  vol.unlinkSync(oldPath);
}

/** A memfs entry as FsDirent: its name always a string (no `encoding` option is ever given). */
function direntOf(entry: { name: unknown } & FsTypeTests): FsDirent {
  return {
    name: String(entry.name),
    isFile: () => entry.isFile(),
    isDirectory: () => entry.isDirectory(),
    isSymbolicLink: () => entry.isSymbolicLink(),
  };
}

function direntsOf(vol: Volume, path: string): FsDirent[] {
  const entries = vol.readdirSync(path, { withFileTypes: true });
  return entries.map((entry) => {
    if (typeof entry === "string" || !("isFile" in entry)) throw new Error("memfs readdir returned no types");
    return direntOf(entry);
  });
}

/** The user every call on a memory filesystem runs as, and the owner of what it creates. */
export const memoryFsUid = 0;

/** An in-memory filesystem for the simulator and the contract tests; `vol` is there to arrange and inspect. */
export function createMemoryFs(): { fs: FsLike; vol: Volume } {
  // A fixed user (uid 0, though memfs gives it no superuser powers): memfs would otherwise ask the
  // real process for its uid and gid on every call (a system call each, a third of the simulator's
  // time), and the volume would depend on the host.
  const owner = {
    cwd: () => "/",
    platform: "linux",
    env: {},
    getuid: () => memoryFsUid,
    getgid: () => memoryFsUid,
    emitWarning: () => {},
  };
  const vol = Volume.fromJSON({}, "/", { process: owner } as Parameters<typeof Volume.fromJSON>[2]);
  vol.chmodSync("/", 0o755);
  const memConstants = createFsFromVolume(vol).constants;
  const constants: FsConstants = {
    O_RDONLY: memConstants.O_RDONLY,
    O_WRONLY: memConstants.O_WRONLY,
    O_CREAT: memConstants.O_CREAT,
    O_EXCL: memConstants.O_EXCL,
    O_NOFOLLOW: memConstants.O_NOFOLLOW,
    O_NONBLOCK: memConstants.O_NONBLOCK,
    O_DIRECTORY: memConstants.O_DIRECTORY,
  };
  const opened = new Map<number, string>();
  const fs: FsLike = {
    constants,
    openSync: (path, flags, mode) => {
      const fd = vol.openSync(path, flags, mode);
      opened.set(fd, path);
      return fd;
    },
    closeSync: (fd) => {
      vol.closeSync(fd);
      opened.delete(fd);
    },
    readSync: (fd, buffer, offset, length, position) => vol.readSync(fd, buffer, offset, length, position),
    writeSync: (fd, buffer, offset, length, position) => vol.writeSync(fd, buffer, offset, length, position),
    fsyncSync: (fd) => vol.fsyncSync(fd),
    ftruncateSync: (fd, length) => vol.ftruncateSync(fd, length),
    fstatSync: (fd) => fstatLikeLinux(vol, fd, opened.get(fd)),
    futimesSync: (fd, atime, mtime) => vol.futimesSync(fd, atime, mtime),
    lstatSync: (path) => statsOf(vol.lstatSync(path)),
    renameSync: (oldPath, newPath) => renameLikeLinux(vol, oldPath, newPath),
    unlinkSync: (path) => vol.unlinkSync(path),
    linkSync: (existingPath, newPath) => vol.linkSync(existingPath, newPath),
    mkdirSync: (path, options) => vol.mkdirSync(path, options),
    chmodSync: (path, mode) => vol.chmodSync(path, mode),
    fchmodSync: (fd, mode) => vol.fchmodSync(fd, mode),
    readdirSync: ((path: string, options?: { withFileTypes: true }) =>
      options === undefined ? vol.readdirSync(path).map(String) : direntsOf(vol, path)) as FsLike["readdirSync"],
    opendirSync: (path) => {
      const dir = vol.opendirSync(path);
      return {
        readSync: () => {
          const entry = dir.readSync();
          return entry === null ? null : direntOf(entry);
        },
        closeSync: () => dir.closeSync(),
      };
    },
    rmSync: (path, options) => vol.rmSync(path, options),
    readlinkSync: (path) => String(vol.readlinkSync(path)),
    realpathSync: (path) => String(vol.realpathSync(path)),
  };
  return { fs, vol };
}
