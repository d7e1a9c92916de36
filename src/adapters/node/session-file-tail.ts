// The end of a Pi session file, as it is on disk. Two processes on one session id append to one
// file, and each knows only what it loaded at its start and what it appended itself: the twin
// that takes an inbox over from a crashed owner finds what that owner showed only here.
import { constants } from "node:fs";
import { sessionFileTailBytesMax } from "../../domain/mail/limits.js";
import type { FsLike } from "../fs/shared/fs-like.js";
import { nodeFs } from "./node-fs.js";

interface Read {
  path: string;
  size: number;
  mtimeMs: number;
  lines: string[];
}

/** Returns a reader of a session file's last lines (at most sessionFileTailBytesMax, the first one
 * cut dropped), read again only when the file's size or mtime changed; [] when it cannot be read. */
export function createSessionFileTail(fs: FsLike = nodeFs): (path: string | undefined) => readonly string[] {
  let last: Read | undefined;
  return (path) => {
    if (path === undefined) return [];
    let fd: number | undefined;
    try {
      fd = fs.openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      const stats = fs.fstatSync(fd);
      if (!stats.isFile()) return [];
      if (last?.path === path && last.size === stats.size && last.mtimeMs === stats.mtimeMs) return last.lines;
      const length = Math.min(stats.size, sessionFileTailBytesMax);
      const buffer = Buffer.alloc(length);
      let read = 0;
      while (read < length) {
        const n = fs.readSync(fd, buffer, read, length - read, stats.size - length + read);
        if (n === 0) break;
        read += n;
      }
      const lines = buffer.subarray(0, read).toString("utf8").split("\n");
      if (length < stats.size) lines.shift();
      last = { path, size: stats.size, mtimeMs: stats.mtimeMs, lines };
      return lines;
    } catch {
      return [];
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  };
}
