// Mail and bus in one simulated world: one memfs volume, one process table, one virtual clock (Date
// kept on it), one fault schedule, 2-4 mail sessions and 2-4 bus sessions of which 1-2 are both (one
// Pi process running a mailbox engine and a bus engine under one session id and pid). The mail
// scheduler's and the bus scheduler's steps interleave from the seed; after every step both
// invariant sets run, and neither context may write inside the other's folder. A failure names the
// seed; SIM_COMBINED_SEED=<n> replays exactly that schedule and prints its log.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installWallClock } from "../bus/wall-clock.js";
import { runCombinedSeed } from "./run-combined-seed.js";

const seedCount = Number(process.env.SIM_COMBINED_SEEDS ?? 100);
const only = process.env.SIM_COMBINED_SEED;

// Date follows the virtual wall clock (this file runs in a worker of its own).
let restore: () => void = () => {};
beforeAll(() => {
  restore = installWallClock();
});
afterAll(() => restore());

describe("combined simulator: mail and bus sessions in one world", () => {
  it(`keeps every mail, bus and cross-context invariant over ${only === undefined ? seedCount : 1} seeds (replay one with SIM_COMBINED_SEED=<seed>)`, async () => {
    const seeds = only !== undefined ? [Number(only)] : Array.from({ length: seedCount }, (_, i) => i + 1);
    const failures: string[] = [];
    let published = 0;
    let delivered = 0;
    let claimed = 0;
    let pairCrashes = 0;
    let mailWrites = 0;
    let busWrites = 0;
    for (const seed of seeds) {
      const world = await runCombinedSeed(seed);
      published += world.mail.published.length;
      delivered += world.log.filter((line) => /^bus: .* [1-9]\d* delivered/.test(line)).length;
      claimed += world.log.filter((line) => /^bus: claim .*: ok$/.test(line)).length;
      pairCrashes += world.log.filter((line) => /kill -9 s\d\+|crash armed s\d\+|arm crash s\d\+/.test(line)).length;
      mailWrites += world.writes.mail.count;
      busWrites += world.writes.bus.count;
      if (only !== undefined) console.log(world.log.map((line, i) => `${i}: ${line}`).join("\n"));
      if (world.violations.length > 0) {
        failures.push(
          `seed ${seed}: ${world.violations.slice(0, 3).join("; ")}\n  last steps: ${world.log.slice(-8).join(" | ")}`,
        );
      }
    }
    expect(
      failures,
      `${failures.length} of ${seeds.length} seeds failed; replay with SIM_COMBINED_SEED=<seed>\n${failures.slice(0, 5).join("\n")}`,
    ).toEqual([]);
    // Both contexts must actually work in the one world, or the invariants above prove nothing.
    expect(published).toBeGreaterThan(seeds.length * 3);
    expect(delivered).toBeGreaterThan(seeds.length);
    expect(claimed).toBeGreaterThan(seeds.length);
    expect(pairCrashes).toBeGreaterThan(0);
    expect(mailWrites).toBeGreaterThan(0);
    expect(busWrites).toBeGreaterThan(0);
  }, 120_000);
});
