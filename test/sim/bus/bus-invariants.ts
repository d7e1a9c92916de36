// What must hold after every step of a bus schedule, judged from disk and the process table. The
// checks tied to one call (all-or-nothing claims, a gone holder's claims free, nothing shown twice)
// run as each call returns, in bus-calls.ts; notices are checked as they arrive (bus-agent.ts);
// writes outside the bus folder as they are made (recording-fs.ts).
import { messageTtlMs } from "../../../src/domain/bus/limits.js";
import { type DiskClaim, filesHeld, inboxFileThere, liveClaims, tagOf } from "./bus-disk.js";
import type { BusWorld } from "./bus-world.js";

/** The same path, or one a directory prefix of the other: written here again, so a fault in the
 * product's own predicate cannot hide from the check. */
const conflict = (a: string, b: string) => a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);

/** Invariant 1: never two live holders of conflicting paths, by key (the same path, or a folder
 * of it) or by file (one file under two names: identity claims of one file, each beside its path
 * claim: one left alone holds nothing).
 * `where` names a moment inside a call (a reader sampling claims/ mid-call); `excused` pairs are
 * allowed there. */
export function checkNoDoubleHolders(
  world: BusWorld,
  where = "",
  excused: (a: DiskClaim, b: DiskClaim) => boolean = () => false,
): void {
  const held = liveClaims(world);
  const files = filesHeld(held);
  const live = held.filter((c) => c.identity === undefined);
  const none = new Set<string>();
  for (let i = 0; i < live.length; i++) {
    for (let j = i + 1; j < live.length; j++) {
      const a = live[i]!;
      const b = live[j]!;
      if (a.owner === b.owner) continue;
      const bFiles = files.get(tagOf(b)) ?? none;
      const sameFile = [...(files.get(tagOf(a)) ?? none)].some((f) => bFiles.has(f));
      if ((conflict(a.key, b.key) || sameFile) && !excused(a, b)) {
        world.violations.push(
          `two live holders${where}: ${a.key}${a.observed === true ? " (observed)" : ""} (${a.owner.slice(0, 8)}) and ${b.key}${b.observed === true ? " (observed)" : ""} (${b.owner.slice(0, 8)})${sameFile ? ", one file" : ""}`,
        );
      }
    }
  }
}

/** Invariant 3: a message a send reported delivered is in its recipient's inbox until a read of
 * the recipient returns it, or its 24 h TTL (by mtime) lets a prune end it. */
function checkNothingDeletedUnseen(world: BusWorld): void {
  for (const message of world.ledger.unseen()) {
    if (inboxFileThere(world, message.to, message.name)) continue;
    world.ledger.settle(message);
    // The prune deletes what is older than its own now minus the TTL: the latest wall time bounds it.
    if (message.mtimeMs < world.maxWallMs - messageTtlMs) continue;
    world.violations.push(
      `message ${message.messageId.slice(0, 8)} to ${message.to.slice(0, 8)} was deleted unseen (${message.name})`,
    );
  }
}

export function checkStep(world: BusWorld): void {
  checkNoDoubleHolders(world);
  checkNothingDeletedUnseen(world);
}
