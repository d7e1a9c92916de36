// The deterministic multi-session simulator: many seeded schedules with faults, invariants after
// every step. A failure names the seed; SIM_SEED=<n> replays exactly that schedule.
import { describe, expect, it } from "vitest";
import { runSeed, type SeedOptions } from "./run-seed.js";
import type { World } from "./world.js";

const seedCount = Number(process.env.SIM_SEEDS ?? 320);
/** Schedules with two processes on one session id: fewer, each one has the twin for most of its steps. */
const twinSeedCount = Number(process.env.SIM_TWIN_SEEDS ?? 60);
const only = process.env.SIM_SEED;

function printWorld(world: World): void {
  console.log(world.log.join("\n"));
  for (const s of world.sessions) console.log(s.label, s.address, s.instance?.agent.notices);
  for (const e of world.published)
    console.log(
      e.kind,
      e.id.slice(0, 8),
      e.from.slice(0, 8),
      "->",
      e.to.slice(0, 8),
      e.in_reply_to.map((i) => i.slice(0, 8)),
      e.status,
    );
}

/** Runs the seeds; fails naming each failing seed, its first violations and its last steps. */
async function runSeeds(count: number, options: SeedOptions, replay: string): Promise<void> {
  const seeds = only !== undefined ? [Number(only)] : Array.from({ length: count }, (_, i) => i + 1);
  const failures: string[] = [];
  let published = 0;
  for (const seed of seeds) {
    const world = await runSeed(seed, options);
    published += world.published.length;
    if (only !== undefined) printWorld(world);
    if (world.violations.length > 0) {
      failures.push(
        `seed ${seed}: ${world.violations.slice(0, 3).join("; ")}\n  last steps: ${world.log.slice(-8).join(" | ")}`,
      );
    }
  }
  expect(failures, `replay with SIM_SEED=<seed> ${replay}\n${failures.slice(0, 5).join("\n")}`).toEqual([]);
  // The schedules must actually move mail, or the invariants above prove nothing.
  expect(published).toBeGreaterThan(seeds.length * 5);
}

describe("simulator: seeded multi-session schedules with faults", () => {
  it(`keeps every invariant over ${only === undefined ? seedCount : 1} seeds (replay one with SIM_SEED=<seed>)`, async () => {
    await runSeeds(seedCount, { twin: false }, "npx vitest run test/sim -t invariant");
  }, 120_000);

  it(`loses and doubles nothing with a twin process on one session id, over ${only === undefined ? twinSeedCount : 1} seeds`, async () => {
    await runSeeds(twinSeedCount, { twin: true }, "npx vitest run test/sim -t twin");
  }, 120_000);
});
