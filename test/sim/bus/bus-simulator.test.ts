// The coordination bus in the deterministic simulator: 2-5 sessions on one memfs volume, seeded
// schedules with crashes at any fs call, pid reuse, hung processes, clock jumps, late and dropped
// hints, and races inside calls; invariants after every step. A failure names the seed;
// SIM_BUS_SEED=<n> replays exactly that schedule and prints its log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runBusSeed } from "./run-bus-seed.js";
import { installWallClock } from "./wall-clock.js";

const seedCount = Number(process.env.SIM_BUS_SEEDS ?? 300);
const only = process.env.SIM_BUS_SEED;

// Date follows the virtual wall clock (this file runs in a worker of its own).
let restore: () => void = () => {};
beforeAll(() => {
  restore = installWallClock();
});
afterAll(() => restore());

describe("bus simulator: seeded multi-session schedules with faults", () => {
  it(`keeps every bus invariant over ${only === undefined ? seedCount : 1} seeds (replay one with SIM_BUS_SEED=<seed>)`, () => {
    const seeds = only !== undefined ? [Number(only)] : Array.from({ length: seedCount }, (_, i) => i + 1);
    const failures: string[] = [];
    let delivered = 0;
    let claimed = 0;
    for (const seed of seeds) {
      const world = runBusSeed(seed);
      delivered += world.log.filter((line) => / [1-9]\d* delivered/.test(line)).length;
      claimed += world.log.filter((line) => /^claim .*: ok$/.test(line)).length;
      if (only !== undefined) console.log(world.log.map((line, i) => `${i}: ${line}`).join("\n"));
      if (world.violations.length > 0) {
        failures.push(
          `seed ${seed}: ${world.violations.slice(0, 3).join("; ")}\n  last steps: ${world.log.slice(-6).join(" | ")}`,
        );
      }
    }
    expect(
      failures,
      `${failures.length} of ${seeds.length} seeds failed; replay with SIM_BUS_SEED=<seed>\n${failures.slice(0, 5).join("\n")}`,
    ).toEqual([]);
    // The schedules must actually deliver and claim, or the invariants above prove nothing.
    expect(delivered).toBeGreaterThan(seeds.length * 3);
    expect(claimed).toBeGreaterThan(seeds.length * 3);
  }, 120_000);
});
