// The deterministic multi-session simulator: many seeded schedules with faults, invariants after
// every step. A failure names the seed; SIM_SEED=<n> replays exactly that schedule.
import { describe, expect, it } from "vitest";
import { runSeed } from "./run-seed.js";

const seedCount = Number(process.env.SIM_SEEDS ?? 320);

describe("simulator: seeded multi-session schedules with faults", () => {
  const only = process.env.SIM_SEED;
  const seeds = only !== undefined ? [Number(only)] : Array.from({ length: seedCount }, (_, i) => i + 1);
  it(`keeps every invariant over ${seeds.length} seeds (replay one with SIM_SEED=<seed>)`, async () => {
    const failures: string[] = [];
    let published = 0;
    for (const seed of seeds) {
      const world = await runSeed(seed);
      published += world.published.length;
      if (only !== undefined) {
        console.log(world.log.join("\n"));
        for (const s of world.sessions) console.log(s.name, s.address, s.instance?.agent.notices);
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
      if (world.violations.length > 0) {
        failures.push(
          `seed ${seed}: ${world.violations.slice(0, 3).join("; ")}\n  last steps: ${world.log.slice(-8).join(" | ")}`,
        );
      }
    }
    expect(failures, `replay with SIM_SEED=<seed> npx vitest run test/sim\n${failures.slice(0, 5).join("\n")}`).toEqual(
      [],
    );
    // The schedules must actually move mail, or the invariants above prove nothing.
    expect(published).toBeGreaterThan(seeds.length * 5);
  }, 120_000);
});
