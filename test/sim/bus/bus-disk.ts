// The bus folder as the invariants judge it: read straight from the volume (never through a
// process's faults), with liveness from the process table itself rather than any engine's view.

import type { ClaimName, SessionRecord } from "../../../src/domain/bus/bus-files.js";
import { observedLapseMs, sessionTtlMs } from "../../../src/domain/bus/limits.js";
import type { BusWorld } from "./bus-world.js";

export interface DiskRecord {
  record: SessionRecord;
  heartbeatMs: number;
  /** Its process runs (the pid, with the start token the record names). */
  running: boolean;
  /** Running, and the heartbeat within the session TTL: the session holds its label and claims. */
  live: boolean;
  /** Not provably gone, its heartbeat past the TTL by the wall clock: a reader holds its claims until
   * it has itself watched that heartbeat stand still for the TTL (a wall clock step is no silence),
   * so an engine may list or free them. */
  doubtful: boolean;
}

export function names(world: BusWorld, folder: string): string[] {
  try {
    return (world.vol.readdirSync(folder) as unknown[]).map(String).sort();
  } catch {
    return [];
  }
}

/** Records as the table sees them; with `viewer`, as a process in that pid namespace may: a record
 * from another namespace runs, for it, while its heartbeat is within the TTL (its pid cannot be
 * judged from there; the combined simulator runs bus engines in a sandbox). */
export function records(world: BusWorld, viewer?: string): Map<string, DiskRecord> {
  const found = new Map<string, DiskRecord>();
  const folder = `${world.busRoot}/sessions`;
  const nowMs = world.clock.now();
  for (const name of names(world, folder)) {
    if (!name.endsWith(".json")) continue;
    try {
      const path = `${folder}/${name}`;
      const record = JSON.parse(String(world.vol.readFileSync(path, "utf8"))) as SessionRecord;
      const heartbeatMs = world.vol.lstatSync(path).mtimeMs;
      const fresh = nowMs - heartbeatMs <= sessionTtlMs;
      const elsewhere = viewer !== undefined && record.pidNamespace !== undefined && record.pidNamespace !== viewer;
      const alive = record.pid === undefined || world.table.check(record.pid, record.started) !== "gone";
      const running = elsewhere ? fresh : alive && world.table.check(record.pid ?? 0, record.started) === "alive";
      const doubtful = !fresh && (elsewhere || alive);
      found.set(record.id, { record, heartbeatMs, running, live: running && fresh, doubtful });
    } catch {
      // A record is published by rename: a file that does not parse is no record of this world's.
    }
  }
  return found;
}

export interface DiskClaim extends ClaimName {
  file: string;
  /** Marked observed (a `!`-name beside it): it lapses observedLapseMs after its last stamp. */
  observed?: boolean;
  /** Observed, and lapsed by the wall clock: a reader may judge it holds nothing (a reader's trusted
   * time never runs ahead of the wall clock, so before this no reader does). */
  mayHaveLapsed?: boolean;
  /** Observed, and lapsed even by the slowest trusted clock a reader may keep (the wall clock less
   * every forward step it took): every reader judges it holds nothing. */
  lapsed?: boolean;
}

/** `<percent-encoded key>~<owner>~<join token>`, decoded here rather than by the product's codec;
 * an existing file's second name starts `#<device>-<inode>#`, and holds only beside its path claim
 * (the same key, owner and token): one left alone, its path claim reaped, holds nothing. */
export function claims(world: BusWorld): DiskClaim[] {
  const all = allClaims(world);
  const paths = new Map<string, DiskClaim>();
  for (const c of all) if (c.identity === undefined) paths.set(tagOf(c), c);
  const marked = markedTags(world);
  const nowMs = world.clock.now();
  const lapseOf = (path: DiskClaim) => {
    if (!marked.has(tagOf(path))) return {};
    // A mark is one more link of its claim's file: the path claim's mtime is the last edit's stamp.
    const stampMs = mtimeOf(world, `${world.busRoot}/claims/${path.file}`);
    if (stampMs === undefined) return { observed: true };
    const mayHaveLapsed = nowMs - stampMs >= observedLapseMs;
    const lapsed = nowMs - world.forwardJumpsMs - stampMs >= observedLapseMs;
    return { observed: true, mayHaveLapsed, lapsed };
  };
  const judged = new Map([...paths].map(([tag, path]) => [tag, lapseOf(path)]));
  return all.flatMap((c) => {
    // An identity claim holds only beside its path claim, and lapses with it.
    const lapse = judged.get(tagOf(c));
    return lapse === undefined ? [] : [{ ...c, ...lapse }];
  });
}

/** The tag a path claim, its identity claims and its mark share. */
const tagOf = (c: ClaimName): string => `${c.owner}~${c.joinToken}~${c.key}`;

function mtimeOf(world: BusWorld, path: string): number | undefined {
  try {
    return world.vol.lstatSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Tags of the claims marked observed: each `!<path claim's name>` in claims/. */
export function markedTags(world: BusWorld): Set<string> {
  const tags = new Set<string>();
  for (const file of names(world, `${world.busRoot}/claims`)) {
    if (!file.startsWith("!")) continue;
    const [encoded, owner, joinToken, ...rest] = file.slice(1).split("~");
    if (encoded === undefined || owner === undefined || joinToken === undefined || rest.length > 0) continue;
    try {
      tags.add(`${owner}~${joinToken}~${decodeURIComponent(encoded)}`);
    } catch {
      // Not a mark this world's codec made: it marks nothing.
    }
  }
  return tags;
}

/** Every claim file, an identity left alone included (marks are not claims). */
export function allClaims(world: BusWorld): DiskClaim[] {
  return names(world, `${world.busRoot}/claims`).flatMap((file) => {
    if (file.startsWith("!")) return [];
    const [encoded, owner, joinToken, ...rest] = file.split("~");
    if (encoded === undefined || owner === undefined || joinToken === undefined || rest.length > 0) return [];
    const identity = /^#([0-9]+-[0-9]+)#/.exec(encoded);
    try {
      if (identity !== null) {
        const key = decodeURIComponent(encoded.slice(identity[0].length));
        return [{ key, owner, joinToken, identity: identity[1], file }];
      }
      return [{ key: decodeURIComponent(encoded), owner, joinToken, file }];
    } catch {
      return [];
    }
  });
}

/** Claims that hold for every reader: the owner's record is live and carries the claim's join
 * token, and no reader may judge it lapsed. */
export function liveClaims(world: BusWorld, byId = records(world)): DiskClaim[] {
  return claims(world).filter((claim) => {
    const owner = byId.get(claim.owner);
    return owner?.live === true && owner.record.joinToken === claim.joinToken && claim.mayHaveLapsed !== true;
  });
}

/** The claims some reader may still judge to hold: the live ones, those held for an owner in doubt
 * (see DiskRecord), and observed ones not lapsed by every reader's clock. */
export function heldClaims(world: BusWorld, byId = records(world)): DiskClaim[] {
  return claims(world).filter((claim) => {
    const owner = byId.get(claim.owner);
    const running = owner?.live === true || owner?.doubtful === true;
    return running && owner?.record.joinToken === claim.joinToken && claim.lapsed !== true;
  });
}

/** The file at `key` in the worktree `root` (`<device>-<inode>`), or undefined when that is no file. */
export function fileAt(world: BusWorld, root: string, key: string): string | undefined {
  try {
    const stats = world.vol.statSync(`${root}/${key}`);
    return stats.isFile() ? `${stats.dev}-${stats.ino}` : undefined;
  } catch {
    return undefined;
  }
}

/** The files each path claim among `held` holds by its identity claims (those beside it), by tag. */
export function filesHeld(held: readonly DiskClaim[]): Map<string, Set<string>> {
  const files = new Map<string, Set<string>>();
  for (const c of held) {
    if (c.identity === undefined) continue;
    const tag = tagOf(c);
    const set = files.get(tag) ?? new Set<string>();
    set.add(c.identity);
    files.set(tag, set);
  }
  return files;
}

export { tagOf };

/** Whether an inbox file is still on disk: in its inbox, or in an inbox a prune moved into tmp/
 * and has not settled yet (a crash there leaves it for the next sweep to put back). */
export function inboxFileThere(world: BusWorld, to: string, name: string): boolean {
  if (world.vol.existsSync(`${world.busRoot}/inbox/${to}/${name}`)) return true;
  const tmp = `${world.busRoot}/tmp`;
  return names(world, tmp).some(
    (entry) => entry.startsWith(`inbox~${to}~`) && world.vol.existsSync(`${tmp}/${entry}/${name}`),
  );
}
