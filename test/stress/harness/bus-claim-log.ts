// Judging what racing claimers logged, and what an observer saw in claims/, without the code under
// test: the collision rule and the claim file names are re-derived here from the spec.
//
// A claim that returned ok at `e` and whose release was called at `rs` held its keys throughout
// [e, rs]: the files were made before `e` and removed only after `rs`. Two such windows on
// colliding keys must never overlap. An attempt's files exist at most from the call's start to the
// end of its release (or of the call itself, when it backed off after a lost race).
import type { AcceptLine, ClaimLine, OfferLine, ReadyLine, ReleaseLine } from "./bus-worker-io.js";

/** The same path, or one a directory prefix of the other (the spec's rule). */
export function collide(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

const anyCollide = (a: readonly string[], b: readonly string[]) => a.some((x) => b.some((y) => collide(x, y)));

export interface Attempt {
  owner: string;
  label: string;
  n: number;
  /** A claim call; the part of an offered claim a peer's accept moved away; a peer's accept. */
  kind: "claim" | "moved" | "accept";
  /** The keys whose files this attempt made (none for a refusal before it created anything). */
  keys: string[];
  callStart: bigint;
  callEnd: bigint;
  /** Held from the ok to the release call; undefined when it did not end up holding. */
  hold: { from: bigint; to: bigint } | undefined;
  /** When its files may have existed: from the call to the end of its release or of the call. */
  files: { from: bigint; to: bigint } | undefined;
  /** The call as a claim's outcome, judged as a refusal when it failed; undefined when it names
   * no holder to judge (an accept that found its offer lapsed). */
  claim: ClaimLine | undefined;
}

export interface WorkerLog {
  ready: ReadyLine;
  claims: ClaimLine[];
  releases: ReleaseLine[];
  /** Handoffs this session sent of what a claim took (the race with handoffs). */
  offers?: OfferLine[];
  /** Handoffs this session accepted or tried to. */
  accepts?: AcceptLine[];
}

const overlap = (a: { from: bigint; to: bigint }, b: { from: bigint; to: bigint }) => a.from <= b.to && b.from <= a.to;

/** The accept of each offer by message id (an offer is read, so accepted, at most once). */
function acceptsByOffer(logs: readonly WorkerLog[]): Map<string, { log: WorkerLog; line: AcceptLine }> {
  const found = new Map<string, { log: WorkerLog; line: AcceptLine }>();
  for (const log of logs) {
    for (const line of log.accepts ?? []) {
      if (found.has(line.id)) throw new Error(`offer ${line.id} accepted twice`);
      found.set(line.id, { log, line });
    }
  }
  return found;
}

/** Every claim call of every worker, with its hold and file windows. An offered claim is two
 * attempts: the keys its session released itself, held until that release; and the keys the peer's
 * accept moved, held until that accept began and on disk until it returned. Each accept that took
 * keys is an attempt of the recipient from the accept's return to its release. */
export function attemptsOf(logs: readonly WorkerLog[]): Attempt[] {
  const accepted = acceptsByOffer(logs);
  const claims = logs.flatMap((log) => {
    const releases = new Map(log.releases.filter((r) => r.of === undefined).map((r) => [r.n, r]));
    const offers = new Map((log.offers ?? []).map((o) => [o.n, o]));
    return log.claims.flatMap((claim): Attempt[] => {
      const base = {
        owner: log.ready.id,
        label: log.ready.label,
        n: claim.n,
        kind: "claim" as const,
        callStart: BigInt(claim.s),
        callEnd: BigInt(claim.e),
        claim,
      };
      if (claim.ok) {
        const release = releases.get(claim.n);
        if (release === undefined) throw new Error(`${log.ready.label} claim ${claim.n}: no release logged`);
        const offer = offers.get(claim.n);
        const by = offer?.ok === true ? accepted.get(offer.id) : undefined;
        const taken = by?.line.ok === true ? by.line.taken : [];
        // A release that met the accept's rename mid-way finds the file gone and counts it released.
        const moved =
          offer?.ok === true ? claim.keys.filter((key) => !release.released.includes(key) || taken.includes(key)) : [];
        const kept = claim.keys.filter((key) => !moved.includes(key));
        const own: Attempt = {
          ...base,
          keys: kept,
          hold: { from: BigInt(claim.e), to: BigInt(release.s) },
          files: { from: BigInt(claim.s), to: BigInt(release.e) },
        };
        if (moved.length === 0) return [own];
        // Moved without an accept is a fault judgeHandoffs names; until its release, then.
        const until = by === undefined ? release : by.line;
        const away: Attempt = {
          ...base,
          kind: "moved",
          keys: moved,
          hold: { from: BigInt(claim.e), to: BigInt(until.s) },
          files: { from: BigInt(claim.s), to: BigInt(until.e) },
        };
        return kept.length === 0 ? [away] : [own, away];
      }
      // Backed off after a lost race: it made its files (keys are the paths asked: the cwd is a root).
      const madeFiles = claim.error.kind === "claim-conflict" && claim.error.race;
      return [
        {
          ...base,
          keys: madeFiles ? claim.paths : [],
          hold: undefined,
          files: madeFiles ? { from: base.callStart, to: base.callEnd } : undefined,
        },
      ];
    });
  });
  return [...claims, ...logs.flatMap(acceptAttempts)];
}

/** A session's accepts as attempts: one that took keys holds them until its release; one that
 * moved them and gave them back on a lost race had them on disk during the call, like a claim. */
function acceptAttempts(log: WorkerLog): Attempt[] {
  const releases = new Map(log.releases.filter((r) => r.of === "accept").map((r) => [r.n, r]));
  return (log.accepts ?? []).flatMap((line): Attempt[] => {
    const base = {
      owner: log.ready.id,
      label: log.ready.label,
      n: line.a,
      kind: "accept" as const,
      callStart: BigInt(line.s),
      callEnd: BigInt(line.e),
    };
    const asClaim = { ev: "claim" as const, n: line.a, s: line.s, e: line.e, paths: line.paths };
    if (line.ok) {
      const release = releases.get(line.a);
      if (release === undefined) throw new Error(`${log.ready.label} accept ${line.a}: no release logged`);
      const took: Attempt = {
        ...base,
        keys: line.taken,
        hold: { from: BigInt(line.e), to: BigInt(release.s) },
        files: { from: BigInt(line.s), to: BigInt(release.e) },
        claim: { ...asClaim, ok: true, keys: line.taken, alreadyHeld: [] },
      };
      // The rest was on disk during the call at most: moved and let go to a third session's claim
      // (judged as that refusal), or linked by identity before a rename that found it released.
      const rest = line.paths.filter((key) => !line.taken.includes(key));
      if (rest.length === 0) return [took];
      const keys = lostKeys(line);
      const transient: Attempt = {
        ...base,
        keys: rest,
        hold: undefined,
        files: { from: base.callStart, to: base.callEnd },
        claim:
          keys.length === 0
            ? undefined
            : {
                ...asClaim,
                paths: keys,
                ok: false,
                error: { kind: "claim-conflict", conflicts: line.lost, race: true },
              },
      };
      return [took, transient];
    }
    // Any failed accept may have had its files on disk during the call: it links the identity
    // names before the rename that finds the sender's claim gone, and unlinks them after.
    return [
      {
        ...base,
        keys: line.paths,
        hold: undefined,
        files: { from: base.callStart, to: base.callEnd },
        claim: line.error.kind === "claim-conflict" ? { ...asClaim, ok: false, error: line.error } : undefined,
      },
    ];
  });
}

/** The keys an accept moved and let go to a third session's claim. */
function lostKeys(line: AcceptLine & { ok: true }): string[] {
  return [...new Set(line.lost.map((conflict) => conflict.path))];
}

export interface HandoffTally {
  offers: number;
  /** Accepts that moved keys, and the keys they moved. */
  accepted: number;
  keysMoved: number;
  /** Accepts that found the offer lapsed (the sender had released it all) or gone. */
  lapsed: number;
  /** Accepts that moved keys and let some or all go: a third session's claim met the move mid-way. */
  lostRaces: number;
  /** Each a key lost or held twice by a handoff's two sides: must stay empty. */
  wrong: string[];
}

/** Every offered key ends with exactly one side: released by the sender, or taken by the accept
 * (or, on the accept's lost race, let go by it); an accept takes only keys offered and never
 * one the sender released before the accept began or after it ended; a key the sender did not
 * release was moved by an accept that began before that release returned; and the recipient
 * released exactly what it took. */
export function judgeHandoffs(logs: readonly WorkerLog[]): HandoffTally {
  const tally: HandoffTally = { offers: 0, accepted: 0, keysMoved: 0, lapsed: 0, lostRaces: 0, wrong: [] };
  const accepted = acceptsByOffer(logs);
  const offered = new Set<string>();
  for (const log of logs) {
    const releases = new Map(log.releases.filter((r) => r.of === undefined).map((r) => [r.n, r]));
    for (const offer of log.offers ?? []) {
      if (!offer.ok) continue;
      tally.offers++;
      offered.add(offer.id);
      const where = `${log.ready.label} offer ${offer.n} (${offer.keys.join(",")})`;
      const release = releases.get(offer.n);
      if (release === undefined) {
        tally.wrong.push(`${where}: no release logged`);
        continue;
      }
      const moved = offer.keys.filter((key) => !release.released.includes(key));
      const by = accepted.get(offer.id)?.line;
      if (moved.length > 0 && (by === undefined || BigInt(by.s) > BigInt(release.e))) {
        tally.wrong.push(`${where}: kept ${moved.join(",")} past its release, moved by no accept`);
      }
      if (by?.ok === true) {
        // Both sides may count a key when the release ran while the accept renamed it; never otherwise.
        const met = BigInt(release.s) <= BigInt(by.e) && BigInt(by.s) <= BigInt(release.e);
        const both = met ? [] : by.taken.filter((key) => release.released.includes(key));
        const foreign = by.taken.filter((key) => !offer.keys.includes(key));
        const lost = moved.filter((key) => !by.taken.includes(key) && !lostKeys(by).includes(key));
        if (both.length > 0) tally.wrong.push(`${where}: ${both.join(",")} released by the sender and taken`);
        if (foreign.length > 0) tally.wrong.push(`${where}: the accept took ${foreign.join(",")}, never offered`);
        if (lost.length > 0) tally.wrong.push(`${where}: ${lost.join(",")} neither released nor taken`);
      }
    }
  }
  for (const log of logs) {
    const releases = new Map(log.releases.filter((r) => r.of === "accept").map((r) => [r.n, r]));
    for (const line of log.accepts ?? []) {
      const where = `${log.ready.label} accept ${line.a} of ${line.id}`;
      if (!offered.has(line.id)) tally.wrong.push(`${where}: no such offer was made`);
      if (!line.ok) {
        if (line.error.kind === "claim-conflict" && line.error.race) tally.lostRaces++;
        else if (line.error.kind === "offer-lapsed" || line.error.kind === "no-offer") tally.lapsed++;
        else tally.wrong.push(`${where}: ${JSON.stringify(line.error)}`);
        continue;
      }
      tally.accepted++;
      tally.keysMoved += line.taken.length;
      if (line.lost.length > 0) tally.lostRaces++;
      const release = releases.get(line.a);
      if (release === undefined || release.failed !== undefined || release.released.length !== line.taken.length) {
        tally.wrong.push(`${where}: took ${line.taken.join(",")}, released ${JSON.stringify(release)}`);
      }
    }
  }
  return tally;
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
    if (claim === undefined || claim.ok) continue;
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
        verdict.unexplained.push(`${name} listed at ${snap.from}..${snap.to}`);
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
