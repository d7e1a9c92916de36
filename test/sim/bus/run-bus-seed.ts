// One seeded bus schedule from start to a quiet end, with the invariants checked after every step.
import { traceStep } from "../shared/trace.js";
import { checkStep } from "./bus-invariants.js";
import { startProcess, unhang } from "./bus-process.js";
import { busStep, reap } from "./bus-schedule.js";
import { advance, type BusWorld, createBusWorld, liveProcesses } from "./bus-world.js";

export const busStepsPerSeed = 150;
/** Time the quiet end lets pass: every heartbeat and poll runs at least once. */
const quietMs = 15_000;

export function runBusSeed(seed: number): BusWorld {
  const world = createBusWorld(seed, 2 + (seed % 4));
  try {
    runSteps(world);
  } catch (thrown) {
    // A throw out of the product is a failure of this seed like any other: it names the seed.
    const where = thrown instanceof Error ? (thrown.stack ?? "").split("\n").slice(0, 5).join(" ") : String(thrown);
    world.violations.push(`threw: ${where}`);
  }
  return world;
}

function runSteps(world: BusWorld): void {
  for (const slot of world.slots) startProcess(world, slot);
  for (let step = 0; step < busStepsPerSeed && world.violations.length === 0; step++) {
    world.step = step;
    const what = busStep(world);
    reap(world);
    world.log.push(what);
    traceStep(step, what);
    checkStep(world);
  }
  if (world.violations.length > 0) return;
  quietEnd(world);
}

/** The quiet end: nothing hangs or dies any more, and time passes for every timer to run. */
export function quietEnd(world: BusWorld): void {
  for (const proc of liveProcesses(world)) {
    proc.crash.arm(Number.POSITIVE_INFINITY);
    unhang(world, proc);
  }
  world.watcher.setDropFilter(undefined);
  advance(world, quietMs);
  reap(world);
  checkStep(world);
}
