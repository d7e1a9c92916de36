// Eight real processes, half in the repository and half in a linked worktree (one bus), race
// 1,000 claims over overlapping prefixes: claim → hold briefly → release, each outcome logged with
// the machine's monotonic clock. Never two live holders of colliding paths (by the logs, and by an
// observer listing claims/ meanwhile), and every refusal names a real holder at that moment or says
// it lost a race. Run three ways: claims; claims and edits (observed claims); and claims, edits and
// handoffs (a third of the claims offered to a peer, whose accept moves them while the others race
// for the same paths). Replay the workers' choices with STRESS_SEED=<n> (printed on failure), and
// keep every worker's log with STRESS_DUMP=<prefix>.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attemptsOf,
  doubleHolds,
  judgeHandoffs,
  judgeRefusals,
  judgeSnapshots,
  type Snapshot,
  type WorkerLog,
} from "./harness/bus-claim-log.js";
import { type BusRepo, createBusRepo } from "./harness/bus-repo.js";
import { linesOf } from "./harness/bus-worker-io.js";
import { type BusWorkerBundle, bundleBusWorkers, spawnBusWorker } from "./harness/bus-workers.js";
import { killAllWorkers, type Worker } from "./harness/children.js";
import { seededRandom } from "./harness/seeded-random.js";

const workers = 8;
const claimsTotal = 1_000;
/** Overlapping prefixes: `src` collides with six others, `src/api` with four, a file with its folders. */
const racePaths = [
  "src",
  "src/api",
  "src/api/routes.ts",
  "src/api/v2",
  "src/api/v2/users.ts",
  "src/lib",
  "src/lib/util.ts",
  "docs",
  "docs/guide.md",
  "README.md",
  "test",
  "test/api.test.ts",
];

let bundle: BusWorkerBundle | undefined;
let repo: BusRepo | undefined;
const random = seededRandom();

beforeAll(async () => {
  bundle = await bundleBusWorkers(["bus-claimer"]);
  repo = createBusRepo("stress-bus-race");
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await repo?.dispose();
});

/** Lists claims/ every few ms until `done()`, each listing between two monotonic times. */
async function observe(claimsDir: string, done: () => boolean): Promise<Snapshot[]> {
  const snapshots: Snapshot[] = [];
  while (!done()) {
    const from = process.hrtime.bigint();
    let names: string[];
    try {
      names = readdirSync(claimsDir);
    } catch {
      names = [];
    }
    const to = process.hrtime.bigint();
    if (names.length > 0) snapshots.push({ from, to, names });
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return snapshots;
}

/** STRESS_DUMP=<prefix>: every worker's stdout and stderr to <prefix>-<n>.log, to read a failure. */
function dumpIfAsked(crew: readonly { worker: Worker }[]): void {
  const prefix = process.env.STRESS_DUMP;
  if (prefix === undefined) return;
  for (const [n, { worker }] of crew.entries()) {
    writeFileSync(`${prefix}-${n}.log`, `${worker.lines.join("\n")}\n${worker.stderr()}`);
  }
}

function logOf(worker: Worker): WorkerLog {
  const [ready] = linesOf(worker.lines, "ready");
  if (ready === undefined) throw new Error(`worker ${worker.pid} never said ready`);
  return {
    ready,
    claims: linesOf(worker.lines, "claim"),
    releases: linesOf(worker.lines, "release"),
    offers: linesOf(worker.lines, "offer"),
    accepts: linesOf(worker.lines, "accept"),
  };
}

/** Starts the crew, lets them race once all are loaded, and watches claims/ until all are done. */
async function race(r: BusRepo, seed: number, mode: Mode): Promise<{ logs: WorkerLog[]; snapshots: Snapshot[] }> {
  const labels = Array.from({ length: workers }, (_, i) => `claimer-${i}`);
  const crew = labels.map((label, i) =>
    spawnBusWorker(bundle!.scripts["bus-claimer"], r, i % 2 === 0 ? r.repo : r.worktree, {
      LABEL: label,
      PATHS: JSON.stringify(racePaths),
      COUNT: String(claimsTotal / workers),
      SEED: String(seed + i),
      PICK_MAX: "3",
      HOLD_MS_MAX: "2",
      RELEASE: "always",
      WAIT_GO: "1",
      OBSERVE: mode.observe ? "1" : "0",
      HANDOFF: mode.handoff ? "1" : "0",
      PEERS: JSON.stringify(labels.filter((other) => other !== label)),
      OFFER_ONE_IN: "2",
      OFFER_HOLD_MS_MAX: "60",
    }),
  );
  await Promise.all(crew.map(({ worker }) => worker.waitFor("ready", (lines) => lines.length > 0, 30_000)));
  for (const { worker } of crew) worker.send("go");
  let finished = false;
  const watching = observe(join(r.bus, "claims"), () => finished);
  try {
    const done = (lines: readonly string[]) => lines.some((line) => line.includes('"ev":"done"'));
    await Promise.all(crew.map(({ worker }) => worker.waitFor("done", done, 120_000)));
  } catch (e) {
    dumpIfAsked(crew);
    throw e;
  } finally {
    finished = true;
  }
  const snapshots = await watching;
  dumpIfAsked(crew);
  const exits = await Promise.all(crew.map(({ worker }) => worker.closed));
  const stderr = crew.map(({ worker }) => worker.stderr()).join("\n");
  expect(
    exits.map((exit) => exit.code),
    stderr,
  ).toEqual(crew.map(() => 0));
  const logs = crew.map(({ worker }) => logOf(worker));
  expect(logs.map((log) => log.ready.id)).toEqual(crew.map(({ id }) => id));
  return { logs, snapshots };
}

interface Mode {
  observe: boolean;
  handoff: boolean;
}

const modes: readonly Mode[] = [
  { observe: false, handoff: false },
  { observe: true, handoff: false },
  { observe: true, handoff: true },
];

/** The race with handoffs moved claims this often at least (about 60 in a run). */
const acceptsMin = 8;

describe("claims raced by real processes", () => {
  for (const mode of modes) {
    const what = mode.handoff
      ? "claims, edits and handoffs (accepts moving claims)"
      : mode.observe
        ? "claims and edits (observed claims)"
        : "claims";
    it(`${workers} processes in two worktrees race ${claimsTotal} ${what} over overlapping prefixes: never two live holders, and every refusal names a real holder or a lost race`, async () => {
      await raceAndJudge(mode);
    }, 180_000);
  }
});

async function raceAndJudge(mode: Mode): Promise<void> {
  const r = repo!;
  const startedMs = Date.now();
  const context = `STRESS_SEED=${random.seed}`;
  try {
    const { logs, snapshots } = await race(r, random.seed, mode);
    const attempts = attemptsOf(logs);
    const claims = logs.flatMap((log) => log.claims);
    expect(claims).toHaveLength(claimsTotal);
    // By the logs: no two hold windows on colliding keys overlap.
    expect(doubleHolds(attempts), context).toEqual([]);
    // Every release took back exactly what its claim took (of an offered claim, what no accept
    // moved: judged with the handoffs).
    const releaseProblems = logs.flatMap((log) => {
      const offered = new Set((log.offers ?? []).filter((o) => o.ok).map((o) => o.n));
      return log.releases.filter(
        (rel) =>
          rel.failed !== undefined ||
          (rel.of === undefined && !offered.has(rel.n) && rel.released.length !== rel.keys.length),
      );
    });
    expect(releaseProblems, context).toEqual([]);
    // Every offered key ended with exactly one side, and accepts really moved claims.
    const handoffs = judgeHandoffs(logs);
    expect(handoffs.wrong, context).toEqual([]);
    if (mode.handoff) expect(handoffs.accepted, JSON.stringify(handoffs)).toBeGreaterThanOrEqual(acceptsMin);
    // Every refusal names a real holder at that moment, or a race it lost.
    const refusals = judgeRefusals(attempts);
    expect(refusals.wrong, context).toEqual([]);
    // By the observer: every file on disk belongs to a claim in flight or held, never two held at once.
    const observed = judgeSnapshots(snapshots, attempts);
    expect(observed.unexplained, context).toEqual([]);
    expect(observed.doubleHeld, context).toEqual([]);

    // The race was real: many holds and many refusals, and the observer saw claims while it ran.
    const held = claims.filter((claim) => claim.ok).length;
    const refused = claims.length - held;
    expect(held).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(100);
    expect(observed.snapshots).toBeGreaterThan(50);
    // Everyone left: no claim and no record remain.
    expect(readdirSync(join(r.bus, "claims")).filter((name) => !name.startsWith("."))).toEqual([]);
    expect(readdirSync(join(r.bus, "sessions"))).toEqual([]);
    expect(readdirSync(join(r.bus, "offers")).filter((name) => !name.startsWith("."))).toEqual([]);
    console.info(
      `bus claim race (${context}${mode.observe ? ", with edits" : ""}${mode.handoff ? " and handoffs" : ""}): ` +
        `${claims.length} by ${workers} processes — ${held} held, ${refused} refused ` +
        `(${refusals.heldByHolder} naming a holder that held, ${refusals.inFlightHolder} naming a holder in flight, ` +
        `${refusals.lostRace} lost races; ${refusals.conflicts} conflicts named); 0 double holders; observer: ` +
        `${observed.snapshots} listings, up to ${observed.mostFiles} files, ${observed.transientPairs} transient colliding pairs; ` +
        (mode.handoff
          ? `handoffs: ${handoffs.offers} offered, ${handoffs.accepted} accepted moving ${handoffs.keysMoved} claims, ` +
            `${handoffs.lapsed} lapsed, ${handoffs.lostRaces} lost races; `
          : "") +
        `${Date.now() - startedMs} ms`,
    );
  } finally {
    await killAllWorkers();
  }
}
