// Judging what racing claimers logged, and what an observer saw in claims/, without the code under
// test: the collision rule and the claim file names are re-derived here from the spec.
//
// A claim that returned ok at `e` and whose release was called at `rs` held its keys throughout
// [e, rs]: the files were made before `e` and removed only after `rs`. Two such windows on
// colliding keys must never overlap. An attempt's files exist at most from the call's start to the
// end of its release (or of the call itself, when it backed off after a lost race).
import type { ClaimLine, ReadyLine, ReleaseLine } from "./bus-worker-io.js";

/** The same path, or one a directory prefix of the other (the spec's rule). */
export function collide(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

const anyCollide = (a: readonly string[], b: readonly string[]) => a.some((x) => b.some((y) => collide(x, y)));

export interface Attempt {
  owner: string;
  label: string;
  n: number;
  /** The keys whose files this attempt made (none for a refusal before it created anything). */
  keys: string[];
  callStart: bigint;
  callEnd: bigint;
  /** Held from the ok to the release call; undefined when it did not end up holding. */
  hold: { from: bigint; to: bigint } | undefined;
  /** When its files may have existed: from the call to the end of its release or of the call. */
  files: { from: bigint; to: bigint } | undefined;
  claim: ClaimLine;
}

export interface WorkerLog {
  ready: ReadyLine;
  claims: ClaimLine[];
  releases: ReleaseLine[];
}

const overlap = (a: { from: bigint; to: bigint }, b: { from: bigint; to: bigint }) => a.from <= b.to && b.from <= a.to;

/** Every claim call of every worker, with its hold and file windows. */
export function attemptsOf(logs: readonly WorkerLog[]): Attempt[] {
  return logs.flatMap((log) => {
    const releases = new Map(log.releases.map((r) => [r.n, r]));
    return log.claims.map((claim): Attempt => {
      const base = {
        owner: log.ready.id,
        label: log.ready.label,
        n: claim.n,
        callStart: BigInt(claim.s),
        callEnd: BigInt(claim.e),
        claim,
      };
      if (claim.ok) {
        const release = releases.get(claim.n);
        if (release === undefined) throw new Error(`${log.ready.label} claim ${claim.n}: no release logged`);
        return {
          ...base,
          keys: claim.keys,
          hold: { from: BigInt(claim.e), to: BigInt(release.s) },
          files: { from: BigInt(claim.s), to: BigInt(release.e) },
        };
      }
      // Backed off after a lost race: it made its files (keys are the paths asked: the cwd is a root).
      const madeFiles = claim.error.kind === "claim-conflict" && claim.error.race;
      return {
        ...base,
        keys: madeFiles ? claim.paths : [],
        hold: undefined,
        files: madeFiles ? { from: base.callStart, to: base.callEnd } : undefined,
      };
    });
  });
}

/** Pairs of holds by different sessions on colliding keys whose hold windows overlap. */
export function doubleHolds(attempts: readonly Attempt[]): string[] {
  const holds = attempts.filter((a) => a.hold !== undefined).sort((a, b) => Number(a.hold!.from - b.hold!.from));
  const found: string[] = [];
  for (let i = 0; i < holds.length; i++) {
    const a = holds[i]!;
    // Sorted by start: only the holds that start before this one ends can overlap it.
    for (let j = i + 1; j < holds.length && holds[j]!.hold!.from <= a.hold!.to; j++) {
      const b = holds[j]!;
      if (a.owner !== b.owner && anyCollide(a.keys, b.keys)) {
        found.push(`${a.label}#${a.n} ${a.keys.join(",")} and ${b.label}#${b.n} ${b.keys.join(",")}`);
      }
    }
  }
  return found;
}

export interface RefusalTally {
  /** Refused at the first look, naming a session whose claim of that path succeeded. */
  heldByHolder: number;
  /** Refused at the first look, naming a session whose own claim of that path was in flight and backed off. */
  inFlightHolder: number;
  /** Refused after creating: it lost a race, naming the colliding session. */
  lostRace: number;
  /** Conflicts named (a refusal may name several). */
  conflicts: number;
  /** Refusals naming no real holder at that moment, or failing some other way: must stay empty. */
  wrong: string[];
}

/** Every refusal names, for each conflict, a racing session that had a file on a colliding path at
 * some moment of the refused call, under its id and its label; or says the call lost a race. */
export function judgeRefusals(attempts: readonly Attempt[]): RefusalTally {
  const tally: RefusalTally = { heldByHolder: 0, inFlightHolder: 0, lostRace: 0, conflicts: 0, wrong: [] };
  const byOwner = new Map<string, Attempt[]>();
  for (const a of attempts) byOwner.set(a.owner, [...(byOwner.get(a.owner) ?? []), a]);
  for (const refused of attempts) {
    const { claim } = refused;
    if (claim.ok) continue;
    const where = `${refused.label}#${refused.n} (${claim.paths.join(",")})`;
    if (claim.error.kind !== "claim-conflict") {
      tally.wrong.push(`${where}: ${JSON.stringify(claim.error)}`);
      continue;
    }
    if (claim.error.race) tally.lostRace++;
    const window = { from: refused.callStart, to: refused.callEnd };
    let held = true;
    let named = true;
    for (const conflict of claim.error.conflicts) {
      tally.conflicts++;
      const theirs = (byOwner.get(conflict.holder.id) ?? []).filter(
        (a) => a.files !== undefined && a.keys.includes(conflict.heldPath) && overlap(a.files, window),
      );
      const label = theirs[0]?.label;
      if (
        !claim.paths.includes(conflict.path) ||
        !collide(conflict.path, conflict.heldPath) ||
        theirs.length === 0 ||
        conflict.holder.label !== label
      ) {
        tally.wrong.push(`${where}: names ${JSON.stringify(conflict)}, no such file at that moment`);
        named = false;
        continue;
      }
      if (!theirs.some((a) => a.hold !== undefined)) held = false;
    }
    if (named && !claim.error.race) {
      if (held) tally.heldByHolder++;
      else tally.inFlightHolder++;
    }
  }
  return tally;
}

/** One listing of claims/ by the observer, between two monotonic times. */
export interface Snapshot {
  from: bigint;
  to: bigint;
  names: string[];
}

export interface ObserverVerdict {
  snapshots: number;
  /** Files seen that no claim in flight or held explains (a leftover, a stranger): must be 0. */
  unexplained: string[];
  /** Colliding files of two sessions that both held throughout the listing: must be 0. */
  doubleHeld: string[];
  /** Colliding files of two live sessions in one listing where one was in flight (it backs off). */
  transientPairs: number;
  mostFiles: number;
}

/** `<%-encoded key>~<owner>~<join token>`, decoded by hand, the `#<device>-<inode>#` of an existing
 * file's second name and the `!` of an observed claim's mark dropped (each names the same key);
 * undefined for any other name. */
function decodeName(name: string): { key: string; owner: string } | undefined {
  const parts = name.split("~");
  if (parts.length !== 3) return undefined;
  try {
    return { key: decodeURIComponent(parts[0]!.replace(/^(?:#[0-9]+-[0-9]+#|!)/, "")), owner: parts[1]! };
  } catch {
    return undefined;
  }
}

export function judgeSnapshots(snapshots: readonly Snapshot[], attempts: readonly Attempt[]): ObserverVerdict {
  const verdict: ObserverVerdict = {
    snapshots: snapshots.length,
    unexplained: [],
    doubleHeld: [],
    transientPairs: 0,
    mostFiles: 0,
  };
  const byOwner = new Map<string, Attempt[]>();
  for (const a of attempts) byOwner.set(a.owner, [...(byOwner.get(a.owner) ?? []), a]);
  for (const snap of snapshots) {
    verdict.mostFiles = Math.max(verdict.mostFiles, snap.names.length);
    const window = { from: snap.from, to: snap.to };
    const seen: { key: string; owner: string; heldThroughout: boolean }[] = [];
    for (const name of snap.names) {
      const claim = decodeName(name);
      const explaining =
        claim === undefined
          ? []
          : (byOwner.get(claim.owner) ?? []).filter(
              (a) => a.files !== undefined && a.keys.includes(claim.key) && overlap(a.files, window),
            );
      if (claim === undefined || explaining.length === 0) {
        verdict.unexplained.push(name);
        continue;
      }
      const heldThroughout = explaining.some(
        (a) => a.hold !== undefined && a.hold.from <= snap.from && snap.to <= a.hold.to,
      );
      seen.push({ ...claim, heldThroughout });
    }
    for (let i = 0; i < seen.length; i++) {
      for (let j = i + 1; j < seen.length; j++) {
        const a = seen[i]!;
        const b = seen[j]!;
        if (a.owner === b.owner || !collide(a.key, b.key)) continue;
        if (a.heldThroughout && b.heldThroughout)
          verdict.doubleHeld.push(`${a.key} by ${a.owner} and ${b.key} by ${b.owner}`);
        else verdict.transientPairs++;
      }
    }
  }
  return verdict;
}
