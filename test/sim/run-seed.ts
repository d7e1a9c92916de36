// One seeded schedule from start to quiet, with the invariants checked after every step.
import { askWaitMs } from "../../src/domain/limits.js";
import { checkQuiet, checkStep } from "./invariants.js";
import { agentStep, flushMicrotasks, randomStep, reap } from "./scheduler.js";
import { advance, createWorld, inboxFiles, pollMs, startSession, type World } from "./world.js";

const stepsPerSeed = 160;
const quietRoundsMax = 400;

async function quiesce(world: World): Promise<void> {
  for (const session of world.sessions) {
    session.instance?.crash.arm(Number.POSITIVE_INFINITY);
    if (session.instance === undefined) startSession(world, session);
  }
  world.watcher.setDropFilter(undefined);
  advance(world, 0);
  // A held request waits for the next run that completes: the user types once in every session.
  for (const session of world.sessions) {
    session.instance?.engine.input();
    if (session.instance !== undefined && !session.instance.agent.running) session.instance.agent.startRequested = true;
  }
  for (let round = 0; round < quietRoundsMax; round++) {
    // An ask whose target lost it in a crash waits out its 10 minutes: later rounds move faster.
    advance(world, round < 40 ? pollMs : askWaitMs / 4);
    await flushMicrotasks();
    for (const session of world.sessions) agentStep(world, session, true);
    await flushMicrotasks();
    const busy = world.sessions.some(
      (s) =>
        s.instance !== undefined &&
        (s.instance.agent.running || s.instance.agent.startRequested || s.instance.agent.queue.length > 0),
    );
    if (!busy && round > 4 && inboxFiles(world, "new").length === 0) return;
  }
  const stuck = world.sessions.map(
    (s) =>
      `${s.name}: running=${s.instance?.agent.running} start=${s.instance?.agent.startRequested} queue=${s.instance?.agent.queue.length} ask=${s.instance?.ask?.outcome ?? (s.instance?.ask ? "waiting" : "none")}`,
  );
  world.violations.push(`the world did not quiesce in ${quietRoundsMax} rounds (${stuck.join("; ")})`);
}

export async function runSeed(seed: number): Promise<World> {
  const world = createWorld(seed, 2 + (seed % 3));
  for (const session of world.sessions) startSession(world, session);
  advance(world, 0);
  for (let step = 0; step < stepsPerSeed && world.violations.length === 0; step++) {
    const what = await randomStep(world);
    await flushMicrotasks();
    reap(world);
    world.log.push(what);
    checkStep(world);
  }
  if (world.violations.length === 0) {
    await quiesce(world);
    checkStep(world);
    checkQuiet(world);
  }
  return world;
}
