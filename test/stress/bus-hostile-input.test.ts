// A live bus session (a real process, wired like production) keeps working while more than 500
// hostile entries land in the bus folder's sessions/, inbox/ and claims/, round after round: every
// action answers in bounded time and never throws; mail this build cannot read is named and left
// on disk until its TTL; orphan claims are reaped and nothing else there is removed; no link out of
// the bus folder (or to a file inside it that the bus does not read) is followed: the files behind
// them are neither read (atime) nor changed, and no result carries their marker; every line the
// engine renders (inbox headers, error descriptions) is free of control, bidi and zero-width
// characters. Replay with STRESS_SEED=<n>.
import { randomUUID } from "node:crypto";
import * as fs from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboxRead, StatusView } from "../../src/domain/bus/engine/index.js";
import { handoffBodyCharsMax, inboxBodyCharsMax } from "../../src/domain/bus/limits.js";
import {
  type Expect,
  type HostileBus,
  type HostileEntry,
  hostileText,
  prepareTargets,
  present,
  recordJson,
} from "./harness/bus-hostile.js";
import { drawRound, type HostileRound } from "./harness/bus-hostile-round.js";
import { type BusRepo, createBusRepo } from "./harness/bus-repo.js";
import { type BusWorkerBundle, bundleBusWorkers, spawnBusWorker } from "./harness/bus-workers.js";
import { killAllWorkers, type Worker } from "./harness/children.js";
import { seededRandom } from "./harness/seeded-random.js";
import { expectSealed, mkdir, neverMarker, seal } from "./hostile-world.js";
import { hasLabelUnsafe } from "./label-checks.js";

const rounds = 5;
const entriesPerRound = 110;
/** Every action must answer within this; one that blocks (a FIFO opened, a link loop) fails here. */
const actionBoundMs = 10_000;

let bundle: BusWorkerBundle | undefined;
let repo: BusRepo | undefined;
const random = seededRandom();

beforeAll(async () => {
  bundle = await bundleBusWorkers(["bus-session"]);
  repo = createBusRepo("stress-bus-hostile");
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await repo?.dispose();
});

interface Answer {
  op: string;
  ok?: boolean;
  value?: unknown;
  error?: { kind: string; conflicts?: { holder: { id: string } }[] };
  described?: string;
  threw?: string;
  ms?: number;
}

type Ask = (command: Record<string, unknown>) => Promise<Answer>;

/** A session process answering one action per line, each within actionBoundMs, never by a throw,
 * never with the marker of a file behind a link, and in clean words when it refuses. */
function driver(worker: Worker, slowest: { ms: number }): Ask {
  let asked = 0;
  return async (command) => {
    const n = ++asked;
    worker.send(JSON.stringify(command));
    const results = () => worker.lines.filter((line) => line.startsWith('{"ev":"result"'));
    await worker.waitFor(`answer ${n} (${command.op})`, () => results().length >= n, actionBoundMs);
    const answer = JSON.parse(results()[n - 1]!) as Answer;
    expect(answer.threw, `${command.op} threw`).toBeUndefined();
    expect(JSON.stringify(answer), `${command.op} shows a file behind a link`).not.toContain(neverMarker);
    if (answer.described !== undefined) expect(hasLabelUnsafe(answer.described), answer.described).toBe(false);
    slowest.ms = Math.max(slowest.ms, answer.ms ?? 0);
    return answer;
  };
}

const ofKind = (entries: readonly HostileEntry[], ...expects: Expect[]) =>
  entries.filter((e) => expects.includes(e.expect));

interface Scene {
  h: HostileBus;
  victim: Ask;
  peer: Ask;
  peerId: string;
  label: string;
  /** Every entry placed so far, and what the reads saw over all rounds. */
  placed: HostileEntry[];
  returned: Set<string>;
  named: Set<string>;
}

describe("a live bus session fed hostile entries", () => {
  it(`keeps working through ${rounds * entriesPerRound} hostile entries in sessions/, inbox/ and claims/`, async () => {
    const r = repo!;
    const startedMs = Date.now();
    const context = `STRESS_SEED=${random.seed}`;
    const slowest = { ms: 0 };
    const victimProcess = spawnBusWorker(bundle!.scripts["bus-session"], r, r.repo, {});
    const peerProcess = spawnBusWorker(bundle!.scripts["bus-session"], r, r.worktree, {});
    try {
      for (const p of [victimProcess, peerProcess]) await p.worker.waitFor("ready", (l) => l.length > 0, 30_000);
      const victim = driver(victimProcess.worker, slowest);
      const peer = driver(peerProcess.worker, slowest);
      const joined = await victim({ op: "join" });
      expect(joined.ok, context).toBe(true);
      expect((await peer({ op: "join", label: "peer" })).ok).toBe(true);
      const h: HostileBus = {
        bus: r.bus,
        trap: join(r.base, "trap"),
        inside: join(r.bus, "inside"),
        self: victimProcess.id,
        livePid: process.pid,
      };
      prepareTargets(h, []);
      // Drawn (link targets made) before the seal; placed round by round.
      const drawn: HostileRound[] = Array.from({ length: rounds }, () => drawRound(h, random, entriesPerRound));
      const seals = [seal(h.trap), seal(h.inside)];
      const scene: Scene = {
        h,
        victim,
        peer,
        peerId: peerProcess.id,
        label: (joined.value as { label: string }).label,
        placed: [],
        returned: new Set(),
        named: new Set(),
      };
      for (const [index, round] of drawn.entries()) await playRound(scene, round, `${context}, round ${index + 1}`);

      const { placed } = scene;
      expect(placed.length).toBeGreaterThanOrEqual(500);
      for (const s of seals) expectSealed(s);
      const count = (e: Expect) => ofKind(placed, e).length;
      const inArea = (area: string) => placed.filter((e) => e.area === area).length;
      console.info(
        `bus hostile input (${context}): ${placed.length} hostile entries (${inArea("sessions")} in sessions/, ` +
          `${inArea("inbox")} in the inbox, ${inArea("other-inbox")} in inbox/, ${inArea("claims")} in claims/): ` +
          `${scene.returned.size} messages returned (${rounds * 3} from the peer), ${scene.named.size}/${count("unreadable-mail")} ` +
          `unreadable named and left on disk, ${count("expires") + count("expired")} pruned by a TTL, ${count("reaped")} ` +
          `orphan claims reaped, ${count("left")} entries left alone; slowest action ${Math.round(slowest.ms)} ms; ` +
          `${Date.now() - startedMs} ms`,
      );
    } finally {
      await killAllWorkers();
    }
  }, 180_000);
});

/** One round: place the entries, then status, join, send both ways, drain the inbox, claim. */
async function playRound(scene: Scene, round: HostileRound, where: string): Promise<void> {
  const { victim, peer, placed } = scene;
  for (const entry of round.entries) entry.place();
  placed.push(...round.entries);

  // status: prunes what aged out and reaps orphan claims; lists the hostile sessions as they are.
  const status = await victim({ op: "status" });
  expect(status.ok, where).toBe(true);
  checkStatus(status.value as StatusView, scene, where);
  checkDisk(placed, where);

  expect((await victim({ op: "join" })).value, where).toMatchObject({ label: scene.label });
  const texts = await sendAround(scene, where);
  await drainAndCheck(scene, round, texts, where);
  await claimAround(scene, where);

  // The peer keeps working too, and got the victim's message.
  expect((await peer({ op: "status" })).ok, where).toBe(true);
  const peerRead = (await peer({ op: "inbox", limit: 50 })).value as InboxRead;
  expect(
    peerRead.rows.map((row) => row.message.from),
    where,
  ).toContain(scene.h.self);
  checkDisk(placed, where);
}

/** The peer sends three hostile texts; the victim answers, and its mail to a live hostile session
 * whose inbox is a link out of the bus folder reaches nobody. Returns the peer's texts. */
async function sendAround(scene: Scene, where: string): Promise<string[]> {
  const { victim, peer, h } = scene;
  const texts = [hostileText(random), hostileText(random), `plain ${where}`];
  for (const text of texts) {
    const sent = await peer({ op: "send", to: h.self, text, kind: "ask" });
    expect(sent.ok, `${where}: ${sent.described}`).toBe(true);
  }
  expect((await victim({ op: "send", to: "peer", text: `from the victim, ${where}` })).ok, where).toBe(true);
  const linked = randomUUID();
  fs.writeFileSync(
    join(h.bus, "sessions", `${linked}.json`),
    recordJson(linked, { label: `l-${linked}`, pid: h.livePid }),
  );
  mkdir(join(h.bus, "inbox"));
  fs.symlinkSync(join(h.trap, "dir"), join(h.bus, "inbox", linked));
  expect((await victim({ op: "send", to: linked, text: "into the trap?" })).error?.kind, where).toBe("nobody-reached");
  return texts;
}

/** Reads until a read returns nothing: every readable message once under a clean header, each body
 * the start of its text; every unreadable file named as the reads walk past it, and left. */
async function drainAndCheck(scene: Scene, round: HostileRound, texts: string[], where: string): Promise<void> {
  const rows: InboxRead["rows"] = [];
  const named = new Set<string>();
  for (let reads = 0; ; reads++) {
    expect(reads, `${where}: the inbox never emptied`).toBeLessThan(100);
    const read = await scene.victim({ op: "inbox", limit: 50 });
    const value = read.value as InboxRead;
    expect([read.ok, value.consumeFailed], where).toEqual([true, undefined]);
    rows.push(...value.rows);
    for (const u of value.unreadable) named.add(u.name);
    if (value.rows.length === 0) break;
  }
  for (const row of rows) {
    expect(hasLabelUnsafe(row.header), `${where}: header ${JSON.stringify(row.header)}`).toBe(false);
    expect(scene.returned.has(row.name), `${where}: ${row.name} returned twice`).toBe(false);
    scene.returned.add(row.name);
    const max = row.message.kind === "handoff" ? handoffBodyCharsMax : inboxBodyCharsMax;
    expect(row.message.text.startsWith(row.body) && [...row.body].length <= max, where).toBe(true);
  }
  // By id for the hostile ones: their texts can be 4,000 characters.
  const fromPeer = rows.filter((row) => row.message.from === scene.peerId);
  expect(fromPeer.map((row) => row.message.text).sort(), where).toEqual([...texts].sort());
  const written = rows.filter((row) => row.message.from !== scene.peerId).map((row) => row.message.id);
  const expected = ofKind(round.entries, "row").map((e) => e.message!.id);
  expect(written.sort(), where).toEqual(expected.sort());
  const mail = new Set(ofKind(scene.placed, "unreadable-mail").map((e) => e.name));
  const byName = new Map(scene.placed.map((e) => [e.name, e]));
  expect(
    [...named].filter((name) => !mail.has(name)).map((name) => `${byName.get(name)?.kind ?? "not placed"} ${name}`),
    `${where}: named unreadable`,
  ).toEqual([]);
  const unnamed = ofKind(round.entries, "unreadable-mail").filter((e) => !named.has(e.name));
  expect(
    unnamed.map((e) => `${e.kind} ${e.name}`),
    `${where}: never named`,
  ).toEqual([]);
  for (const name of named) scene.named.add(name);
}

/** Orphans in the way are reaped, a claim is all-or-nothing and released by its owner, and a path a
 * live hostile session holds is refused naming it (in clean words, whatever its label). */
async function claimAround(scene: Scene, where: string): Promise<void> {
  const { victim } = scene;
  const paths = ["src/api/routes.ts", "docs"];
  const claimed = await victim({ op: "claim", paths });
  expect(claimed.ok, `${where}: ${claimed.described}`).toBe(true);
  expect((await victim({ op: "claim", paths })).value, where).toMatchObject({ alreadyHeld: paths });
  expect((await victim({ op: "release", paths })).value, where).toMatchObject({ released: paths });
  const owners = new Set(ofKind(scene.placed, "held").map((e) => e.claim!.owner));
  const blocked = await victim({ op: "claim", paths: ["hostile"] });
  expect(blocked.error?.kind, where).toBe(owners.size > 0 ? "claim-conflict" : undefined);
  const strangers = (blocked.error?.conflicts ?? []).filter((c) => !owners.has(c.holder.id));
  expect(strangers, where).toEqual([]);
  if (owners.size === 0) await victim({ op: "release", paths: ["hostile"] });
}

function checkStatus(view: StatusView, scene: Scene, where: string): void {
  const { placed } = scene;
  const rows = new Map(view.sessions.map((row) => [row.id, row]));
  expect(rows.get(scene.h.self)?.state, where).toBe("active");
  expect(rows.get(scene.peerId)?.state, where).toBe("active");
  for (const entry of ofKind(placed, "active", "gone")) {
    // Listed as it is on disk: raw, for the renderer to sanitize (DESIGN.md: one renderer per context).
    expect(rows.get(entry.record!.id), `${where}: ${entry.kind} ${entry.name} listed`).toMatchObject({
      label: entry.record!.label,
      state: entry.expect,
    });
  }
  for (const entry of ofKind(placed, "expired")) expect(rows.has(entry.name.slice(0, -5)), where).toBe(false);
  for (const entry of ofKind(placed, "held")) {
    expect(rows.get(entry.claim!.owner)?.claims, `${where}: held claim listed`).toContain(entry.claim!.key);
  }
  expect(view.unreadableRecords, `${where}: unreadable records counted`).toBe(
    ofKind(placed, "unreadable-record").length,
  );
}

/** What stays and what goes: unreadable and strange entries stay; aged ones and orphan claims go;
 * rows are checked by the reads that consume them. */
function checkDisk(placed: readonly HostileEntry[], where: string): void {
  const goes: readonly Expect[] = ["expires", "expired", "reaped"];
  const wrong = placed.flatMap((entry) => {
    if (entry.expect === "row") return [];
    const there = present(entry);
    if (there !== goes.includes(entry.expect)) return [];
    return [`${entry.area} ${entry.kind} ${JSON.stringify(entry.name)}: ${there ? "still there" : "removed"}`];
  });
  expect(wrong, where).toEqual([]);
}
