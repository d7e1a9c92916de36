// One seeded schedule from start to quiet, with the invariants checked after every step.
import { askWaitMs } from "../../../src/domain/mail/limits.js";
import { traceStep } from "../shared/trace.js";
import { unreachedCount } from "./delivery-invariants.js";
import { startTwin } from "./fault-steps.js";
import { checkQuiet, checkStep } from "./invariants.js";
import { agentStep, flushMicrotasks, randomStep, reap } from "./scheduler.js";
import { advance, createWorld, inboxFiles, pollMs, setStopped, startSession, type World } from "./world.js";

const stepsPerSeed = 160;
const quietRoundsMax = 400;
/** Rounds of one poll each; later rounds move a quarter of an ask's wait at a time. */
const fastRounds = 40;

export async function quiesce(world: World): Promise<void> {
  world.diskFullSteps = 0;
  for (const session of world.sessions) {
    session.instance?.crash.arm(Number.POSITIVE_INFINITY);
    session.instance?.reads.failNext(0);
    if (session.instance?.stopped === true) setStopped(world, session.instance, false);
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
    advance(world, round < fastRounds ? pollMs : askWaitMs / 4);
    await flushMicrotasks();
    for (const session of world.sessions) agentStep(world, session, true);
    await flushMicrotasks();
    const busy = world.sessions.some(
      (s) =>
        s.instance !== undefined &&
        (s.instance.agent.running || s.instance.agent.startRequested || s.instance.agent.queue.length > 0),
    );
    // Mail that has not reached its session yet may still be on its way (a guest twin takes the inbox
    // over at its next ownership check, a failed read is retried at the next poll); after the fast
    // rounds it is lost, and checkQuiet says so.
    const waiting = unreachedCount(world) > 0 && round < fastRounds;
    if (!busy && round > 4 && inboxFiles(world, "new").length === 0 && !waiting) return;
  }
  const stuck = world.sessions.map(
    (s) =>
      `${s.label}: running=${s.instance?.agent.running} start=${s.instance?.agent.startRequested} queue=${s.instance?.agent.queue.length} ask=${s.instance?.ask?.outcome ?? (s.instance?.ask ? "waiting" : "none")}`,
  );
  world.violations.push(`the world did not quiesce in ${quietRoundsMax} rounds (${stuck.join("; ")})`);
}

export interface SeedOptions {
  /** A second process starts on one session's id at a seeded step (pi -c in two panes). */
  twin: boolean;
}

export async function runSeed(seed: number, options: SeedOptions = { twin: false }): Promise<World> {
  const world = createWorld(seed, 2 + (seed % 3));
  try {
    await runSteps(world, options);
  } catch (thrown) {
    // A throw out of the product is a failure of this seed like any other: it names the seed.
    const where = thrown instanceof Error ? (thrown.stack ?? "").split("\n").slice(0, 4).join(" ") : String(thrown);
    world.violations.push(`threw: ${where}`);
  }
  return world;
}

async function runSteps(world: World, options: SeedOptions): Promise<void> {
  for (const session of world.sessions) startSession(world, session);
  advance(world, 0);
  const twinAt = options.twin ? world.prng.nextInt(stepsPerSeed / 2) : -1;
  for (let step = 0; step < stepsPerSeed && world.violations.length === 0; step++) {
    if (world.diskFullSteps > 0) world.diskFullSteps--;
    const what =
      step === twinAt
        ? startTwin(world, world.sessions[world.prng.nextInt(world.sessions.length)]!)
        : await randomStep(world);
    await flushMicrotasks();
    reap(world);
    world.log.push(what);
    traceStep(step, what);
    checkStep(world);
  }
  if (world.violations.length === 0) {
    await quiesce(world);
    checkStep(world);
    checkQuiet(world);
  }
}
