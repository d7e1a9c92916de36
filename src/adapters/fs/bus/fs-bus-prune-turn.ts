// Which files of a folder one prune looks at: all of them when they fit its share of the prune's
// budget; otherwise that many, oldest names first (a message's name begins with its send time),
// going on after the last name the previous prune of the folder looked at and back to the oldest
// once past the end. However big the folder, every file is looked at within a bounded number of
// prunes, and no prune pays for all of them.
import type { FsBusContext } from "./fs-bus-folders.js";

/** Per store, per folder: the name of the last file a prune looked at (only while the folder holds
 * more than one turn). */
const cursors = new WeakMap<FsBusContext, Map<string, string>>();

function cursorsOf(disk: FsBusContext): Map<string, string> {
  let byFolder = cursors.get(disk);
  if (byFolder === undefined) {
    byFolder = new Map();
    cursors.set(disk, byFolder);
  }
  return byFolder;
}

/** The index of the first name after `after` (0 past the end: the turn wraps to the oldest). */
function firstAfter(sorted: readonly string[], after: string): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((sorted[middle] as string) <= after) low = middle + 1;
    else high = middle;
  }
  return low === sorted.length ? 0 : low;
}

/** The names this prune looks at, at most `looksMax`, in name order (for mail, oldest first). */
export function takeTurn(disk: FsBusContext, folder: string, names: readonly string[], looksMax: number): string[] {
  const byFolder = cursorsOf(disk);
  if (names.length <= looksMax) {
    byFolder.delete(folder);
    return [...names];
  }
  if (looksMax <= 0) return [];
  // Plain strings sort by UTF-16 units, as `<=` compares them: a 20,000-name sort costs a few ms.
  const sorted = [...names].sort();
  const after = byFolder.get(folder);
  const start = after === undefined ? 0 : firstAfter(sorted, after);
  const turn: string[] = [];
  for (let i = 0; i < looksMax; i++) turn.push(sorted[(start + i) % sorted.length] as string);
  byFolder.set(folder, turn[turn.length - 1] as string);
  return turn;
}

/** The folder is gone: where its prune stopped means nothing any more. */
export function forgetTurn(disk: FsBusContext, folder: string): void {
  cursors.get(disk)?.delete(folder);
}
