// The files under live peers' claims, stamped (inode, size, mtime) before and after a shell call. A
// claimed folder is walked for the files below it; links are stamped as themselves, never followed,
// and `.git` is passed over (git's own files are not a session's work). Bounded: past `filesMax`
// entries looked at in all, the rest are recorded as unchecked (their names come with the listing
// that found them; nothing more is read) and counted.
import { lstatSync, readdirSync } from "node:fs";
import type { ClaimLook, PathState, WatchLook } from "../../domain/bus/claimed-writes.js";
import type { WatchedClaim } from "../../domain/bus/engine/index.js";

function look(path: string): PathState {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    if (stats === undefined) return "absent";
    return stats.isDirectory() ? "folder" : { ino: stats.ino, size: stats.size, mtimeMs: stats.mtimeMs };
  } catch {
    // Not reachable (a folder on the way without permission): as good as absent to this session.
    return "absent";
  }
}

/** A folder's entries, in name order (so each look takes the same ones within the bound); undefined
 * when it cannot be listed (then what is below it is not known, rather than absent). */
function names(folder: string): string[] | undefined {
  try {
    return readdirSync(folder).sort();
  } catch {
    return undefined;
  }
}

export function stampClaims(claims: readonly WatchedClaim[], filesMax: number): WatchLook {
  let left = filesMax;
  let unchecked = 0;
  const looks: ClaimLook[] = claims.map(({ key, holder, paths: roots }) => {
    const paths = new Map<string, PathState>();
    const pending = [...roots];
    let next = 0;
    for (; next < pending.length && left > 0; next++, left--) {
      const path = pending[next] as string;
      const seen = look(path);
      const below = seen === "folder" ? names(path) : [];
      paths.set(path, below === undefined ? "unchecked" : seen);
      for (const name of below ?? []) if (name !== ".git") pending.push(`${path}/${name}`);
    }
    // Past the bound: recorded, so that a file there is neither made nor removed to the comparison.
    for (let at = next; at < pending.length; at++) paths.set(pending[at] as string, "unchecked");
    unchecked += pending.length - next;
    return { key, holder, paths };
  });
  return { claims: looks, uncheckedFiles: unchecked };
}
