// The files under live peers' claims, stamped (inode, size, mtime) before and after a shell call. A
// claimed folder is walked for the files below it; links are stamped as themselves, never followed,
// and `.git` is passed over (git's own files are not a session's work). Bounded: past `filesMax`
// files in all, the rest are counted and not stamped.
import { lstatSync, readdirSync } from "node:fs";
import type { ClaimLook, FileStamp, WatchLook } from "../../domain/bus/claimed-writes.js";
import type { WatchedClaim } from "../../domain/bus/engine/index.js";

function stamp(path: string): { stamp: FileStamp | undefined; folder: boolean } {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return { stamp: undefined, folder: false };
    return { stamp: { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs }, folder: stats.isDirectory() };
  } catch {
    // Not readable (a folder on the way without permission): as good as absent to this session.
    return { stamp: undefined, folder: false };
  }
}

function names(folder: string): string[] {
  try {
    return readdirSync(folder).sort();
  } catch {
    return [];
  }
}

export function stampClaims(claims: readonly WatchedClaim[], filesMax: number): WatchLook {
  let left = filesMax;
  let unchecked = 0;
  const looks: ClaimLook[] = claims.map(({ key, holder, paths }) => {
    const files = new Map<string, FileStamp | undefined>();
    const pending = [...paths];
    while (pending.length > 0) {
      const path = pending.shift() as string;
      if (left <= 0) {
        unchecked++;
        continue;
      }
      left--;
      const seen = stamp(path);
      if (!seen.folder) {
        files.set(path, seen.stamp);
        continue;
      }
      for (const name of names(path)) if (name !== ".git") pending.push(`${path}/${name}`);
    }
    return { key, holder, files };
  });
  return { claims: looks, uncheckedFiles: unchecked };
}
