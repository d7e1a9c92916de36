// A claiming process SIGKILLed at random points, 200 times: while it loads, joins, claims, holds,
// releases. Once it is judged gone (reaped, its pid dead), a fresh session's claim on the paths it
// used succeeds, and a status read lists none of its claims and leaves none of its files in claims/
// (gone frees them at once). Four lanes run side by side on disjoint paths of one bus.
// Replay the choices with STRESS_SEED=<n>.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BusRepo, createBusRepo, startSession } from "./harness/bus-repo.js";
import { linesOf } from "./harness/bus-worker-io.js";
import { type BusWorkerBundle, bundleBusWorkers, spawnBusWorker } from "./harness/bus-workers.js";
import { killAllWorkers } from "./harness/children.js";
import { type SeededRandom, seededRandom } from "./harness/seeded-random.js";

const kills = 200;
const lanes = 4;
/** One kill in this many lands anywhere from the spawn on (loading, resolving, joining). */
const earlyKillOneIn = 4;
const earlyKillMsMax = 400;
/** The others land this long after the worker said ready, in its claim loop. */
const loopKillMsMax = 40;

let bundle: BusWorkerBundle | undefined;
let repo: BusRepo | undefined;
const random = seededRandom();

beforeAll(async () => {
  bundle = await bundleBusWorkers(["bus-claimer"]);
  repo = createBusRepo("stress-bus-kill");
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await repo?.dispose();
});

const lanePaths = (lane: number) =>
  ["src", "src/api", "src/api/routes.ts", "src/api/v2", "docs", "docs/guide.md"].map((p) => `lane-${lane}/${p}`);

interface Tally {
  kills: number;
  /** Killed before it said ready (loading, resolving the repository, joining). */
  early: number;
  /** Claim files the killed session left behind, found before the fresh session came. */
  filesLeft: number;
  killsHolding: number;
  /** Claims of a killed session still counted after the fresh claim and status: must be 0. */
  orphans: string[];
}

/** The claim files of `id`; none while claims/ does not exist yet (a claimer killed before the bus
 * folder was first opened by anyone). */
function ownedBy(bus: string, id: string): string[] {
  if (!existsSync(join(bus, "claims"))) return [];
  return readdirSync(join(bus, "claims")).filter((name) => name.split("~")[1] === id);
}

const isDead = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (thrown) {
    return (thrown as NodeJS.ErrnoException).code === "ESRCH";
  }
};

async function killOnce(r: BusRepo, lane: number, step: number, rand: SeededRandom, tally: Tally): Promise<void> {
  const cwd = step % 2 === 0 ? r.repo : r.worktree;
  const paths = lanePaths(lane);
  const { id, worker } = spawnBusWorker(bundle!.scripts["bus-claimer"], r, cwd, {
    LABEL: `victim-${lane}-${step}`,
    PATHS: JSON.stringify(paths),
    COUNT: "0",
    SEED: String(rand.int(0, 2 ** 30)),
    PICK_MAX: "3",
    HOLD_MS_MAX: "3",
    RELEASE: "sometimes",
  });
  const where = `lane ${lane} kill ${step} (session ${id}, pid ${worker.pid})`;
  if (rand.int(1, earlyKillOneIn) === 1) {
    await new Promise((resolve) => setTimeout(resolve, rand.int(0, earlyKillMsMax)));
  } else {
    await worker.waitFor("ready", (lines) => lines.length > 0, 30_000);
    await new Promise((resolve) => setTimeout(resolve, rand.int(0, loopKillMsMax)));
  }
  const exit = await worker.kill();
  expect(exit.signal, `${where}: ${worker.stderr()}`).toBe("SIGKILL");
  expect(isDead(worker.pid), `${where}: its pid is dead once it was reaped`).toBe(true);
  tally.kills++;
  if (linesOf(worker.lines, "ready").length === 0) tally.early++;
  const left = ownedBy(r.bus, id).length;
  tally.filesLeft += left;
  if (left > 0) tally.killsHolding++;
  await checkFreed(r, cwd, paths, id, where, tally);
}

/** A fresh session claims what the killed one used, and one status read shows it holds nothing. */
async function checkFreed(r: BusRepo, cwd: string, paths: string[], killed: string, where: string, tally: Tally) {
  const fresh = startSession(r, r.place(cwd));
  try {
    const claimed = fresh.engine.claim(paths);
    if (claimed.isErr()) tally.orphans.push(`${where}: the fresh claim failed: ${JSON.stringify(claimed.error)}`);
    const status = fresh.engine.status();
    if (status.isErr()) throw new Error(`${where}: status failed: ${JSON.stringify(status.error)}`);
    for (const row of status.value.sessions) {
      if (row.id === killed && row.state !== "gone") tally.orphans.push(`${where}: listed ${row.state}`);
      if (row.id === killed && row.claims.length > 0) tally.orphans.push(`${where}: listed holding ${row.claims}`);
    }
    for (const name of ownedBy(r.bus, killed)) tally.orphans.push(`${where}: ${name} still in claims/`);
    expect(fresh.host.warnings, where).toEqual([]);
  } finally {
    fresh.engine.shutdown("quit");
  }
  expect(ownedBy(r.bus, fresh.id), `${where}: the fresh session left nothing`).toEqual([]);
}

async function runLane(r: BusRepo, lane: number, count: number, tally: Tally): Promise<void> {
  const rand = seededRandom(String(random.seed + lane));
  for (let step = 0; step < count; step++) await killOnce(r, lane, step, rand, tally);
}

describe("claimers killed with SIGKILL", () => {
  it(`${kills} kills at random points leave 0 orphan claims once each killer is judged gone`, async () => {
    const r = repo!;
    const startedMs = Date.now();
    const tally: Tally = { kills: 0, early: 0, filesLeft: 0, killsHolding: 0, orphans: [] };
    try {
      await Promise.all(Array.from({ length: lanes }, (_, lane) => runLane(r, lane, kills / lanes, tally)));
    } finally {
      await killAllWorkers();
    }
    const context = `STRESS_SEED=${random.seed}`;
    expect(tally.orphans, context).toEqual([]);
    expect(tally.kills).toBe(kills);
    // The kills really landed while claims were held, and some before the join finished.
    expect(tally.killsHolding).toBeGreaterThan(kills / 4);
    expect(tally.early).toBeGreaterThan(0);
    console.info(
      `bus kill claimer (${context}): ${tally.kills} kills (${tally.early} before ready, ${tally.killsHolding} holding ` +
        `${tally.filesLeft} claim files in all), ${tally.orphans.length} orphans; ${Date.now() - startedMs} ms`,
    );
  }, 180_000);
});
