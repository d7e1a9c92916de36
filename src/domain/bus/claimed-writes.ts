// What a shell command did to files live peers claim: the look before it and the look after it,
// compared. A command cannot be read for the paths it writes before it runs, so nothing is stopped:
// what changed is named afterwards, to the model that ran it and to each holder. Pure: an adapter
// stamps the files.
import type { Holder } from "./claim-rules.js";

/** One file's state: its inode, size and mtime; undefined when nothing is there. */
export interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** The files under one claim, stamped: path → stamp (absent files too, as undefined). */
export interface ClaimLook {
  key: string;
  holder: Holder;
  files: Map<string, FileStamp | undefined>;
}

export interface WatchLook {
  claims: ClaimLook[];
  /** Files past the bound, not stamped: not checked. */
  uncheckedFiles: number;
}

/** A claimed file the command changed, and whose claim it is. */
export interface ClaimedWrite {
  path: string;
  key: string;
  holder: Holder;
  change: "made" | "removed" | "changed";
}

function changeOf(before: FileStamp | undefined, after: FileStamp | undefined): ClaimedWrite["change"] | undefined {
  if (before === undefined) return after === undefined ? undefined : "made";
  if (after === undefined) return "removed";
  const same = before.ino === after.ino && before.size === after.size && before.mtimeMs === after.mtimeMs;
  return same ? undefined : "changed";
}

/** Every claimed file whose stamp differs between the two looks (a file the second look found that
 * the first did not, under a claimed folder, was made), in path order. */
export function claimedWrites(before: WatchLook, after: WatchLook): ClaimedWrite[] {
  const writes: ClaimedWrite[] = [];
  after.claims.forEach((look, at) => {
    const earlier = before.claims[at]?.files ?? new Map<string, FileStamp | undefined>();
    const paths = new Set([...earlier.keys(), ...look.files.keys()]);
    for (const path of paths) {
      const change = changeOf(earlier.get(path), look.files.get(path));
      if (change !== undefined) writes.push({ path, key: look.key, holder: look.holder, change });
    }
  });
  // By path: the listing's order is the file system's, and a report should read the same every time.
  return writes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
