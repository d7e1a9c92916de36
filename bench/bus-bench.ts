// The bus figures: claim, status and inbox, each beside its raw floor measured in the same round on
// the same fresh bus folder, ours and the floor taking turns going first (ext4 creates slowly for a
// while after deletes, so both must meet the same file system state).

import { randomUUID } from "node:crypto";
import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { Result } from "neverthrow";
import { createFsBusStore } from "../src/adapters/fs/bus/fs-bus-store.js";
import { cryptoEntropy } from "../src/adapters/node/crypto-entropy.js";
import { nodeFs } from "../src/adapters/node/node-fs.js";
import { createProcessProbe } from "../src/adapters/node/proc-probe.js";
import { currentUid } from "../src/adapters/node/process-user.js";
import type { SessionRecord } from "../src/domain/bus/bus-files.js";
import { encodeClaimFile, encodeClaimName } from "../src/domain/bus/claim-key.js";
import type { BusEngine } from "../src/domain/bus/engine/index.js";
import { messageTtlMs } from "../src/domain/bus/limits.js";
import type { BusStore } from "../src/ports/bus/bus-store.js";
import type { RepoPlace } from "../src/ports/bus/repo-resolver.js";
import { busFolder, createNodeBus } from "../src/wiring/node-bus.js";
import { alternate, freshRoot } from "./fs-bench.js";
import { median, nowUs, percentile } from "./stats.js";

/** One figure: medians per call over every round, and the spread of ours / floor across rounds. */
export interface BusFigure {
  oursUs: number;
  floorUs: number;
  /** The ratio of each round's medians: the smallest and the largest. */
  roundRatioMin: number;
  roundRatioMax: number;
  rounds: number;
  perRound: number;
}

export interface BusFigures {
  claim: BusFigure;
  /** The same claims against the checked floor: the bare floor plus what a correct claim cannot skip. */
  claimChecked: BusFigure;
  status: BusFigure;
  inbox: BusFigure;
}

const peers = 20;
const claimsPerPeer = 5;
const messagesPerPeer = 3;
const inboxRead = 20;
const selfId = "019ad0e0-0000-7000-8000-0000000000aa";
const senderId = "019ad0e0-0000-7000-8000-0000000000ee";
/** The floor's inbox: a session id with no record, so ours never reads it. */
const floorId = "019ad0e0-0000-7000-8000-0000000000ff";
const peerId = (i: number) => `019ad0e0-0000-7000-8000-${String(i + 1).padStart(12, "0")}`;
/** Short enough that 20 rows fit the 4,000-character budget of one read. */
const text = (i: number) => `Rebased on main; api tests pass. Take src/api/routes.ts next. #${i}`;

const quietHost = { raiseTurn() {}, warn() {} };

export interface Bus {
  /** The bus folder: sessions/, inbox/, claims/, tmp/. */
  root: string;
  repo: string;
  store: BusStore;
  engine: BusEngine;
}

/** A fresh repository folder and its bus: 20 other live sessions (this process's pid and start token
 * in every record, so each is judged alive by the real probe), 5 claims each, 3 unread messages
 * each; and this session's engine, joined (not listening: no watcher, no ticker). */
export function freshBus(label: string, shape: { peers?: number; claimsPerPeer?: number; joined?: boolean } = {}): Bus {
  const { peers: peerCount = peers, claimsPerPeer: claimCount = claimsPerPeer, joined = true } = shape;
  const base = realpathSync(freshRoot(`bus-${label}`));
  const repo = join(base, "repo");
  mkdirSync(repo);
  const place: RepoPlace = { key: "bench", common: repo, root: repo, cwd: repo };
  const agentDir = join(base, "agent");
  const root = busFolder(agentDir, place);
  const store = createFsBusStore({ fs: nodeFs, root, uid: currentUid(), entropy: cryptoEntropy });
  const opened = store.open();
  if (opened.isErr()) throw new Error(`bus open failed: ${opened.error.kind}`);
  const { pid, started, bootId, pidNamespace } = createProcessProbe().self();
  const now = Date.now();
  for (let i = 0; i < peerCount; i++) {
    const id = peerId(i);
    const record: SessionRecord = {
      id,
      label: `peer-${i}`,
      pid,
      ...(started === undefined ? {} : { started }),
      ...(bootId === undefined ? {} : { bootId }),
      ...(pidNamespace === undefined ? {} : { pidNamespace }),
      joinToken: cryptoEntropy.uuid(),
      cwd: repo,
      root: repo,
      armed: true,
      wake: false,
      joinedAt: new Date(now).toISOString(),
    };
    must(store.writeRecord(record), "record");
    const keys = Array.from({ length: claimCount }, (_, k) => `peers/p${i}/file-${k}.ts`);
    must(store.createClaims(id, record.joinToken, record.label, keys), "claims");
    for (let m = 0; m < messagesPerPeer; m++) deliver(store, senderId, id, now + m, m);
  }
  const engine = createNodeBus({ host: quietHost, agentDir, place });
  engine.sessionStarted({ id: selfId, name: "bench" }, "startup");
  if (joined) must(engine.join({ listen: false }), "join");
  return { root, repo, store, engine };
}

function must<T, E>(result: Result<T, E>, what: string): void {
  if (result.isErr()) throw new Error(`bench setup failed (${what}): ${JSON.stringify(result.error)}`);
}

function deliver(store: BusStore, from: string, to: string, sentAtMs: number, i: number): void {
  const message = {
    id: cryptoEntropy.uuid(),
    from,
    fromLabel: "sender",
    to,
    kind: "message" as const,
    text: text(i),
    paths: [],
    sentAt: new Date(sentAtMs).toISOString(),
    hops: 0,
  };
  must(store.deliver(message, sentAtMs), "deliver");
}

interface Samples {
  ours: number[];
  floor: number[];
  roundRatios: number[];
}

const warmUp = (): Samples => ({ ours: [], floor: [], roundRatios: [] });

function figure(s: Samples, rounds: number, perRound: number): BusFigure {
  return {
    oursUs: median(s.ours),
    floorUs: median(s.floor),
    roundRatioMin: percentile(s.roundRatios, 0),
    roundRatioMax: percentile(s.roundRatios, 100),
    rounds,
    perRound,
  };
}

/** Runs `perRound` turns on one fresh bus, ours and the floor alternating who goes first each turn. */
function measure(s: Samples, perRound: number, turn: (i: number) => { floor: () => number; ours: () => number }): void {
  const ours: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < perRound; i++) {
    const t = turn(i);
    alternate(
      i,
      () => floor.push(t.floor()),
      () => ours.push(t.ours()),
    );
  }
  s.ours.push(...ours);
  s.floor.push(...floor);
  s.roundRatios.push(median(ours) / median(floor));
}

const { O_CREAT, O_EXCL, O_WRONLY } = constants;

/**
 * `busClaim`: one engine's `claim` of 3 existing files with 100 claims held by 20 other live
 * sessions (none on these paths), then its `release` untimed.
 * Floor: a temp file written once (exclusive create, write, close) and hard-linked under the three
 * claim names (three exclusive link-creates), then one readdirSync of claims/. Its name is made and
 * its unlinks (the temp file and the three links) run outside the timing.
 * Checked floor (`busClaimChecked`): the bare floor plus what any correct claim must also do, bare:
 * find what each path is (a stat, which gives the device and inode, and realpath(3)), see that
 * claims/ and tmp/ are still this user's real folders (one lstat each), look at claims/ once before
 * creating (a listing and the key checks), link the temp file under each file's identity name too
 * (device and inode: a hard link is the same file), remove the temp file, and check every listed
 * name's key against the three keys (equal, or one a folder of the other).
 * Why the look before creating is work a claim must do: a claim that created first and looked once
 * made concurrent claimers back off from files it was about to remove; in the 8-process claim race
 * (test/stress/bus-claim-race.test.ts) the claims that held fell from 221 to 115-132 of 1,000.
 */
export async function benchBusClaim(
  rounds: number,
  perRound: number,
): Promise<{ claim: BusFigure; claimChecked: BusFigure }> {
  const bare: Samples = { ours: [], floor: [], roundRatios: [] };
  const checked: Samples = { ours: [], floor: [], roundRatios: [] };
  // Round -1 warms the JIT and is not counted: the first calls of ours run unoptimized code.
  for (let r = -1; r < rounds; r++) {
    const bus = freshBus("claim");
    mkdirSync(join(bus.repo, "src"));
    const round = { ours: [] as number[], bare: [] as number[], checked: [] as number[] };
    for (let i = 0; i < perRound; i++) {
      const turn = claimTurn(bus, i);
      const steps = [
        () => round.bare.push(turn.bare()),
        () => round.checked.push(turn.checked()),
        () => round.ours.push(turn.ours()),
      ];
      // Each goes first, second and third in turn, so none always meets the warmer file system.
      for (let k = 0; k < steps.length; k++) steps[(i + k) % steps.length]!();
    }
    bus.engine.shutdown("quit");
    if (r < 0) continue;
    for (const [samples, floor] of [
      [bare, round.bare],
      [checked, round.checked],
    ] as const) {
      samples.ours.push(...round.ours);
      samples.floor.push(...floor);
      samples.roundRatios.push(median(round.ours) / median(floor));
    }
  }
  return { claim: figure(bare, rounds, perRound), claimChecked: figure(checked, rounds, perRound) };
}

/** A name's key overlaps a key: the same path, or one a folder of the other (`/` is `%2F` in names). */
const overlaps = (a: string, b: string) => a === b || a.startsWith(`${b}%2F`) || b.startsWith(`${a}%2F`);

/** One turn of busClaim: three new files, and the three ways of claiming them, each timed. */
function claimTurn(bus: Bus, i: number): { bare: () => number; checked: () => number; ours: () => number } {
  const claims = join(bus.root, "claims");
  const tmp = join(bus.root, "tmp");
  const owner = "019ad0e0-0000-7000-8000-0000000000fc";
  const token = "019ad0e0-0000-7000-8000-0000000000fb";
  const paths = ["a", "b", "c"].map((x) => `src/${x}-${i}.ts`);
  for (const path of paths) writeFileSync(join(bus.repo, path), "");
  const floorClaim = (kind: string) => {
    const keys = paths.map((path) => `${kind}/${path}`);
    const names = keys.map((key) => encodeClaimName({ key, owner, joinToken: token })._unsafeUnwrap());
    return {
      names,
      encodedKeys: names.map((name) => name.slice(0, name.indexOf("~"))),
      text: encodeClaimFile(randomUUID(), owner, token, kind, keys),
    };
  };
  const link = (draft: string, text: string, names: readonly string[]) => {
    const fd = openSync(draft, O_CREAT | O_EXCL | O_WRONLY, 0o600);
    writeSync(fd, text);
    closeSync(fd);
    for (const name of names) linkSync(draft, join(claims, name));
  };
  const bare = floorClaim("floor");
  const full = floorClaim("checked");
  const identityNames = paths.map((path) => {
    const { dev, ino } = statSync(join(bus.repo, path), { bigint: true });
    const key = `checked/${path}`;
    return encodeClaimName({ key, owner, joinToken: token, identity: `${dev}-${ino}` })._unsafeUnwrap();
  });
  const listedConflicts = () => {
    let conflicts = 0;
    for (const name of readdirSync(claims)) {
      const key = name.slice(0, name.indexOf("~"));
      for (const mine of full.encodedKeys) if (overlaps(key, mine) && !full.names.includes(name)) conflicts++;
    }
    return conflicts;
  };
  return {
    bare: () => {
      const draft = join(tmp, `claim~${cryptoEntropy.uuid()}.json`);
      const t0 = nowUs();
      link(draft, bare.text, bare.names);
      readdirSync(claims);
      const us = nowUs() - t0;
      unlinkSync(draft);
      for (const name of bare.names) unlinkSync(join(claims, name));
      return us;
    },
    checked: () => {
      const draft = join(tmp, `claim~${cryptoEntropy.uuid()}.json`);
      const t0 = nowUs();
      for (const path of paths) {
        const absolute = join(bus.repo, path);
        statSync(absolute, { bigint: true, throwIfNoEntry: false });
        realpathSync.native(absolute);
      }
      lstatSync(claims);
      lstatSync(tmp);
      const before = listedConflicts();
      link(draft, full.text, [...full.names, ...identityNames]);
      unlinkSync(draft);
      const conflicts = before + listedConflicts();
      const us = nowUs() - t0;
      if (conflicts !== 0) throw new Error(`checked floor: ${conflicts} conflicts`);
      for (const name of [...full.names, ...identityNames]) unlinkSync(join(claims, name));
      return us;
    },
    ours: () => {
      const t0 = nowUs();
      const claimed = bus.engine.claim(paths);
      const us = nowUs() - t0;
      if (claimed.isErr() || claimed.value.claimed.length !== 3) {
        throw new Error(`claim failed: ${JSON.stringify(claimed)}`);
      }
      const released = bus.engine.release(paths);
      if (released.isErr() || released.value.released.length !== 3) {
        throw new Error(`release failed: ${JSON.stringify(released)}`);
      }
      return us;
    },
  };
}

/**
 * `busStatus`: `status()` with 20 other live sessions, 5 claims and 3 unread messages each, and this
 * session joined: 21 records. It prunes, and finds nothing to prune.
 * Floor: what a bare status must do, by the spec (the rows it shows, and the physical prune it
 * makes), each listing once: readdirSync of claims/ (the claims each row lists, and the orphans a
 * prune reaps); readdirSync of sessions/, and per record readFileSync + JSON.parse + lstatSync (its
 * mtime is the heartbeat) + a liveness probe (process.kill(pid, 0) and a read of /proc/<pid>/stat,
 * whose start time must be the record's); readdirSync of inbox/ (inboxes no record names are
 * dropped), and per inbox readdirSync (its unread count) + lstatSync of each file (mail past the
 * 24-hour TTL expires). Not in it: the sweep of tmp/, nor any second look at what was listed.
 */
export async function benchBusStatus(rounds: number, perRound: number): Promise<BusFigure> {
  const s: Samples = { ours: [], floor: [], roundRatios: [] };
  // Round -1 warms the JIT and is not counted: the first calls of ours run unoptimized code.
  for (let r = -1; r < rounds; r++) {
    const bus = freshBus("status");
    const sessions = join(bus.root, "sessions");
    const claims = join(bus.root, "claims");
    const inbox = join(bus.root, "inbox");
    measure(r < 0 ? warmUp() : s, perRound, () => ({
      floor: () => {
        const t0 = nowUs();
        readdirSync(claims);
        const ids: string[] = [];
        for (const name of readdirSync(sessions)) {
          const path = join(sessions, name);
          const record = JSON.parse(readFileSync(path, "utf8")) as { id: string; pid: number; started?: string };
          lstatSync(path);
          process.kill(record.pid, 0);
          const stat = readFileSync(`/proc/${record.pid}/stat`, "latin1");
          const startTime = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
          if (startTime !== record.started) throw new Error("floor: probe mismatch");
          ids.push(record.id);
        }
        const unread = new Map<string, number>();
        const cutoffMs = Date.now() - messageTtlMs;
        for (const id of readdirSync(inbox)) {
          const names = readdirSync(join(inbox, id));
          for (const name of names) if (lstatSync(join(inbox, id, name)).mtimeMs < cutoffMs) throw new Error("expired");
          unread.set(id, names.length);
        }
        const us = nowUs() - t0;
        const total = ids.reduce((sum, id) => sum + (unread.get(id) ?? 0), 0);
        if (total !== peers * messagesPerPeer) throw new Error(`floor counted ${total} unread`);
        return us;
      },
      ours: () => {
        const t0 = nowUs();
        const view = bus.engine.status();
        const us = nowUs() - t0;
        if (view.isErr() || view.value.sessions.length !== peers + 1) {
          throw new Error(`status failed: ${JSON.stringify(view)}`);
        }
        return us;
      },
    }));
    bus.engine.shutdown("quit");
  }
  return figure(s, rounds, perRound);
}

/**
 * `busInbox`: `inbox(20)` reading and consuming 20 waiting messages (published by the store, as a
 * sender does), with the 20 other sessions' inboxes beside it.
 * Floor: readdirSync of an inbox of 20 such messages; per file lstatSync (its mtime is the arrival
 * order), readFileSync and JSON.parse; a sort by mtime; unlinkSync of every file.
 */
export async function benchBusInbox(rounds: number, perRound: number): Promise<BusFigure> {
  const s: Samples = { ours: [], floor: [], roundRatios: [] };
  // Round -1 warms the JIT and is not counted: the first calls of ours run unoptimized code.
  for (let r = -1; r < rounds; r++) {
    const bus = freshBus("inbox");
    const floorInbox = join(bus.root, "inbox", floorId);
    let sent = Date.now();
    measure(r < 0 ? warmUp() : s, perRound, () => {
      // Both inboxes filled in the same phase, interleaved, before anything is timed.
      for (let m = 0; m < inboxRead; m++) {
        sent++;
        deliver(bus.store, senderId, floorId, sent, m);
        deliver(bus.store, senderId, selfId, sent, m);
      }
      return {
        floor: () => {
          const t0 = nowUs();
          const found: { path: string; mtimeMs: number }[] = [];
          for (const name of readdirSync(floorInbox)) {
            const path = join(floorInbox, name);
            const { mtimeMs } = lstatSync(path);
            JSON.parse(readFileSync(path, "utf8"));
            found.push({ path, mtimeMs });
          }
          found.sort((a, b) => a.mtimeMs - b.mtimeMs);
          for (const { path } of found) unlinkSync(path);
          const us = nowUs() - t0;
          if (found.length !== inboxRead) throw new Error(`floor read ${found.length}`);
          return us;
        },
        ours: () => {
          const t0 = nowUs();
          const read = bus.engine.inbox(inboxRead);
          const us = nowUs() - t0;
          if (read.isErr() || read.value.rows.length !== inboxRead || read.value.more !== 0) {
            throw new Error(`inbox failed: ${JSON.stringify(read)}`);
          }
          return us;
        },
      };
    });
    bus.engine.shutdown("quit");
  }
  return figure(s, rounds, perRound);
}

/** All three, in a fixed order. */
export async function benchBus(quick: boolean): Promise<BusFigures> {
  const rounds = quick ? 3 : 15;
  const perRound = quick ? 10 : 40;
  return {
    ...(await benchBusClaim(rounds, perRound)),
    status: await benchBusStatus(rounds, perRound),
    // Each turn publishes 40 messages first: half the turns, for the same time as the others.
    inbox: await benchBusInbox(rounds, perRound / 2),
  };
}
