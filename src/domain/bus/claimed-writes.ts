// What a shell command did to files live peers claim: the look before it and the look after it,
// compared. A command cannot be read for the paths it writes before it runs, so nothing is stopped:
// what changed is named afterwards, to the model that ran it and to each holder. Pure: an adapter
// stamps the files.
import type { Holder } from "./claim-rules.js";

/** One file's state: its inode, size and mtime. */
interface FileStamp {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** What a look found at one path: a file (or a link, as itself) stamped; nothing; a folder whose
 * every entry the look recorded; or an entry the look's bound left unchecked (below it, nothing is
 * known). */
export type PathState = FileStamp | "absent" | "folder" | "unchecked";

/** The paths under one claim, as one look found them. A path not recorded is known through its
 * nearest recorded folder above it: absent under a folder (its listing did not have it) or under
 * nothing, unknown under an unchecked entry. */
export interface ClaimLook {
  key: string;
  holder: Holder;
  paths: Map<string, PathState>;
}

export interface WatchLook {
  claims: ClaimLook[];
  /** Entries past the bound, not looked at: not checked. */
  uncheckedFiles: number;
}

/** A claimed file the command changed, and whose claim it is. */
export interface ClaimedWrite {
  path: string;
  key: string;
  holder: Holder;
  change: "made" | "removed" | "changed";
}

/** A path's file in one look: its stamp, `null` when no file is there, undefined when not known. */
function fileAt(paths: ReadonlyMap<string, PathState>, path: string): FileStamp | null | undefined {
  const own = paths.get(path);
  if (own !== undefined) return own === "unchecked" ? undefined : typeof own === "object" ? own : null;
  for (let at = path.lastIndexOf("/"); at > 0; at = path.lastIndexOf("/", at - 1)) {
    const above = paths.get(path.slice(0, at));
    // A recorded folder listed every entry (this one was not among them); nothing or a file there
    // leaves no room for it. Only an entry past the bound leaves it unknown.
    if (above !== undefined) return above === "unchecked" ? undefined : null;
  }
  return undefined;
}

function changeOf(before: FileStamp | null | undefined, after: FileStamp | null | undefined) {
  // What either look did not see is not named: the bound must not read as a write.
  if (before === undefined || after === undefined) return undefined;
  if (before === null) return after === null ? undefined : "made";
  if (after === null) return "removed";
  const same = before.ino === after.ino && before.size === after.size && before.mtimeMs === after.mtimeMs;
  return same ? undefined : "changed";
}

/** Every claimed file whose state both looks know and which differs between them, in path order. */
export function claimedWrites(before: WatchLook, after: WatchLook): ClaimedWrite[] {
  const writes: ClaimedWrite[] = [];
  after.claims.forEach((look, at) => {
    const earlier = before.claims[at]?.paths ?? new Map<string, PathState>();
    for (const path of new Set([...earlier.keys(), ...look.paths.keys()])) {
      const change = changeOf(fileAt(earlier, path), fileAt(look.paths, path));
      if (change !== undefined) writes.push({ path, key: look.key, holder: look.holder, change });
    }
  });
  // By path: the listing's order is the file system's, and a report should read the same every time.
  return writes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
