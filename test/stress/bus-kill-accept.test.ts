// A handoff's accept cut by SIGKILL, either side, at random points: the sender offers 40 claims (half
// of them files, so each moves under two names), the recipient accepts, and one of the two is
// killed 0 to 8 ms after the accept was asked for: before it, in the middle of the moves, or after.
// Once the killed process is reaped, no path has two live holders, every path the survivor does not
// hold can be claimed by a fresh session, and the survivor holds what it was told it holds. Four
// lanes run side by side on disjoint paths of one bus. Replay the choices with STRESS_SEED=<n>.
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BusRepo, createBusRepo, startSession } from "./harness/bus-repo.js";
import { type BusWorkerBundle, bundleBusWorkers, spawnBusWorker } from "./harness/bus-workers.js";
import { killAllWorkers, type Worker } from "./harness/children.js";
import { type SeededRandom, seededRandom } from "./harness/seeded-random.js";

const rounds = 240;
const lanes = 4;
const keysPerOffer = 40;
/** The kill lands this long after the accept was asked for. */
const killMsMax = 8;
/** One kill in this many ends the sender; the others the recipient. */
const senderKillOneIn = 3;
const answerMs = 20_000;

let bundle: BusWorkerBundle | undefined;
let repo: BusRepo | undefined;
const random = seededRandom();

beforeAll(async () => {
  bundle = await bundleBusWorkers(["bus-session"]);
  repo = createBusRepo("stress-bus-kill-accept");
  for (let lane = 0; lane < lanes; lane++) {
    mkdirSync(join(repo.repo, `lane-${lane}`), { recursive: true });
    for (const key of laneKeys(lane).filter((_, i) => i % 2 === 0)) writeFileSync(join(repo.repo, key), `${key}\n`);
  }
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await repo?.dispose();
});

/** Half are files (written in beforeAll), half paths that do not exist yet. */
const laneKeys = (lane: number) => Array.from({ length: keysPerOffer }, (_, i) => `lane-${lane}/k${i}.txt`);

interface Tally {
  rounds: number;
  recipientKills: number;
  senderKills: number;
  /** Kills that found some keys moved and some not: the accept was cut in the middle. */
  midMove: number;
  /** Accepts that finished before the kill (the recipient survived, or answered before it died). */
  finished: number;
  faults: string[];
}

interface Side {
  id: string;
  label: string;
  worker: Worker;
}

/** The owners of each lane key on disk, by key (path claims and identity names alike). */
function ownersOnDisk(bus: string, keys: readonly string[]): Map<string, Set<string>> {
  const owners = new Map(keys.map((key) => [key, new Set<string>()]));
  for (const name of readdirSync(join(bus, "claims"))) {
    const parts = name.split("~");
    if (parts.length !== 3) continue;
    const key = decodeURIComponent(parts[0]!.replace(/^#[0-9]+-[0-9]+#/, ""));
    owners.get(key)?.add(parts[1]!);
  }
  return owners;
}

async function ask(side: Side, command: object): Promise<{ ok?: boolean; value?: unknown; error?: unknown }> {
  const before = side.worker.lines.length;
  side.worker.send(JSON.stringify(command));
  await side.worker.waitFor(`${side.label}: ${JSON.stringify(command)}`, (lines) => lines.length > before, answerMs);
  return JSON.parse(side.worker.lines[before]!);
}

async function spawnSide(r: BusRepo, label: string): Promise<Side> {
  const { id, worker } = spawnBusWorker(bundle!.scripts["bus-session"], r, r.repo, {});
  await worker.waitFor(`${label} ready`, (lines) => lines.length > 0, answerMs);
  const side = { id, label, worker };
  const joined = await ask(side, { op: "join", label });
  if (joined.ok !== true) throw new Error(`${label} could not join: ${JSON.stringify(joined)}`);
  return side;
}

/** One offer, one accept, one kill; then the judgement and the cleanup. Returns the sides to use next. */
async function round(r: BusRepo, lane: number, step: number, rand: SeededRandom, sides: Side[], tally: Tally) {
  const [sender, recipient] = sides as [Side, Side];
  const keys = laneKeys(lane);
  const where = `lane ${lane} round ${step}`;
  const claimed = await ask(sender, { op: "claim", paths: keys });
  if (claimed.ok !== true) throw new Error(`${where}: the sender's claim failed: ${JSON.stringify(claimed)}`);
  const sent = await ask(sender, { op: "send", to: recipient.label, kind: "handoff", text: "take", paths: keys });
  const messageId = (sent.value as { messageId?: string } | undefined)?.messageId;
  if (sent.ok !== true || messageId === undefined) throw new Error(`${where}: no offer: ${JSON.stringify(sent)}`);
  const killSender = rand.int(1, senderKillOneIn) === 1;
  const victim = killSender ? sender : recipient;
  const survivor = killSender ? recipient : sender;
  const before = recipient.worker.lines.length;
  recipient.worker.send(JSON.stringify({ op: "accept", id: messageId }));
  await new Promise((resolve) => setTimeout(resolve, rand.int(0, killMsMax)));
  await victim.worker.kill();
  if (killSender) tally.senderKills++;
  else tally.recipientKills++;
  const answered = recipient.worker.lines.length > before;
  if (killSender) {
    await recipient.worker.waitFor(`${where}: the accept's answer`, (lines) => lines.length > before, answerMs);
  }
  const onDisk = ownersOnDisk(r.bus, keys);
  const movedSome = [...onDisk.values()].some((o) => o.has(recipient.id));
  const keptSome = [...onDisk.values()].some((o) => o.has(sender.id));
  if (movedSome && keptSome) tally.midMove++;
  if (answered || killSender) tally.finished++;
  await judge(r, keys, survivor, victim, where, tally);
  const next = await spawnSide(r, `${killSender ? "s" : "r"}-${lane}-${step}`);
  return killSender ? [next, recipient] : [sender, next];
}

/** After the kill: at most one live holder per key; the survivor holds what its claims say; a fresh
 * session claims the rest; then everything is released for the next round. */
async function judge(r: BusRepo, keys: string[], survivor: Side, victim: Side, where: string, tally: Tally) {
  const fresh = startSession(r, r.place(r.repo));
  try {
    const status = fresh.engine.status();
    if (status.isErr()) throw new Error(`${where}: status failed: ${JSON.stringify(status.error)}`);
    const held = new Set(status.value.sessions.find((s) => s.id === survivor.id)?.claims ?? []);
    for (const [key, owners] of ownersOnDisk(r.bus, keys)) {
      const live = [...owners].filter((owner) => owner !== victim.id);
      if (live.length > 1) tally.faults.push(`${where}: ${key} held by ${live.join(" and ")}`);
      if (owners.has(victim.id)) tally.faults.push(`${where}: ${key} still names the killed session after a status`);
      if (live.length === 1 && live[0] !== survivor.id) tally.faults.push(`${where}: ${key} held by ${live[0]}`);
      if ((live[0] === survivor.id) !== held.has(key))
        tally.faults.push(`${where}: ${key} on disk and status disagree`);
    }
    const free = keys.filter((key) => !held.has(key));
    if (free.length > 0) {
      const taken = fresh.engine.claim(free);
      if (taken.isErr())
        tally.faults.push(`${where}: a fresh claim of ${free.length} free keys failed: ${JSON.stringify(taken.error)}`);
      else fresh.engine.release(free);
    }
    if (held.size > 0) {
      const released = await ask(survivor, { op: "release", paths: [...held] });
      if (released.ok !== true)
        tally.faults.push(`${where}: the survivor's release failed: ${JSON.stringify(released)}`);
    }
  } finally {
    fresh.engine.shutdown("quit");
  }
}

async function runLane(r: BusRepo, lane: number, count: number, tally: Tally): Promise<void> {
  const rand = seededRandom(String(random.seed + lane));
  let sides = [await spawnSide(r, `s-${lane}`), await spawnSide(r, `r-${lane}`)];
  for (let step = 0; step < count; step++) {
    sides = await round(r, lane, step, rand, sides, tally);
    tally.rounds++;
  }
  for (const side of sides) await side.worker.kill();
}

describe("a handoff's accept killed with SIGKILL", () => {
  it(`${rounds} accepts of ${keysPerOffer} claims, either side killed at a random point: never two live holders, nothing left unclaimable`, async () => {
    const r = repo!;
    const startedMs = Date.now();
    const tally: Tally = { rounds: 0, recipientKills: 0, senderKills: 0, midMove: 0, finished: 0, faults: [] };
    try {
      await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(r, lane, rounds / lanes, tally)));
    } finally {
      await killAllWorkers();
    }
    const context = `STRESS_SEED=${random.seed}`;
    expect(tally.faults, context).toEqual([]);
    expect(tally.rounds).toBe(rounds);
    // The kills really cut accepts in the middle (35 to 55 a run), and both sides were killed.
    expect(tally.midMove).toBeGreaterThan(5);
    expect(Math.min(tally.senderKills, tally.recipientKills)).toBeGreaterThan(20);
    console.info(
      `bus kill accept (${context}): ${tally.rounds} rounds, ${tally.recipientKills} recipients and ` +
        `${tally.senderKills} senders killed; ${tally.midMove} kills found the move half done, ` +
        `${tally.finished} accepts answered; ${Date.now() - startedMs} ms`,
    );
  }, 240_000);
});
