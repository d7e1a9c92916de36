// The bus folder as the invariants judge it: read straight from the volume (never through a
// process's faults), with liveness from the process table itself rather than any engine's view.

import type { ClaimName, SessionRecord } from "../../../src/domain/bus/bus-files.js";
import { sessionTtlMs } from "../../../src/domain/bus/limits.js";
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
}

/** `<percent-encoded key>~<owner>~<join token>`, decoded here rather than by the product's codec;
 * an existing file's second name starts `#<device>-<inode>#`, and holds only beside its path claim
 * (the same key, owner and token): one left alone, its path claim reaped, holds nothing. */
export function claims(world: BusWorld): DiskClaim[] {
  const all = allClaims(world);
  const paths = new Set(all.filter((c) => c.identity === undefined).map((c) => `${c.owner}~${c.joinToken}~${c.key}`));
  return all.filter((c) => c.identity === undefined || paths.has(`${c.owner}~${c.joinToken}~${c.key}`));
}

/** Every claim file, an identity left alone included. */
export function allClaims(world: BusWorld): DiskClaim[] {
  return names(world, `${world.busRoot}/claims`).flatMap((file) => {
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

/** Claims whose owner's record is live and carries the claim's join token. */
export function liveClaims(world: BusWorld, byId = records(world)): DiskClaim[] {
  return claims(world).filter((claim) => {
    const owner = byId.get(claim.owner);
    return owner?.live === true && owner.record.joinToken === claim.joinToken;
  });
}

/** The live claims, and those a reader may still hold for an owner in doubt (see DiskRecord). */
export function heldClaims(world: BusWorld, byId = records(world)): DiskClaim[] {
  return claims(world).filter((claim) => {
    const owner = byId.get(claim.owner);
    return (owner?.live === true || owner?.doubtful === true) && owner.record.joinToken === claim.joinToken;
  });
}

/** Whether an inbox file is still on disk: in its inbox, or in an inbox a prune moved into tmp/
 * and has not settled yet (a crash there leaves it for the next sweep to put back). */
export function inboxFileThere(world: BusWorld, to: string, name: string): boolean {
  if (world.vol.existsSync(`${world.busRoot}/inbox/${to}/${name}`)) return true;
  const tmp = `${world.busRoot}/tmp`;
  return names(world, tmp).some(
    (entry) => entry.startsWith(`inbox~${to}~`) && world.vol.existsSync(`${tmp}/${entry}/${name}`),
  );
}
