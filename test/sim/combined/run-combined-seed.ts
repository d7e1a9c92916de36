// One seeded combined schedule: at each step the seed picks the mail scheduler's step or the bus
// scheduler's, both on the one world; after every step both invariant sets run, with the check that
// a pair's engines live and die as one process. The guards check the cross-context rule at the call.
import { checkStep as checkBusStep } from "../bus/bus-invariants.js";
import { startProcess, unhang } from "../bus/bus-process.js";
import { busStep, reap as reapBus } from "../bus/bus-schedule.js";
import { liveProcesses } from "../bus/bus-world.js";
import { quietEnd } from "../bus/run-bus-seed.js";
import { checkStep as checkMailStep, checkQuiet } from "../mail/invariants.js";
import { quiesce } from "../mail/run-seed.js";
import { flushMicrotasks, randomStep, reap as reapMail } from "../mail/scheduler.js";
import { advance, startSession } from "../mail/world.js";
import { traceStep } from "../shared/trace.js";
import { type CombinedWorld, createCombinedWorld, syncFrozen, syncTime } from "./combined-world.js";

export const combinedStepsPerSeed = 300;
/** The share of steps the mail scheduler takes; the bus scheduler takes the rest. */
const mailShare = 0.5;

export async function runCombinedSeed(seed: number): Promise<CombinedWorld> {
  const world = createCombinedWorld(seed);
  try {
    await runSteps(world);
  } catch (thrown) {
    // A throw out of the product is a failure of this seed like any other: it names the seed.
    const where = thrown instanceof Error ? (thrown.stack ?? "").split("\n").slice(0, 5).join(" ") : String(thrown);
    world.violations.push(`threw: ${where}`);
  }
  return world;
}

/** A pair's mailbox engine never runs without its bus engine in the same process, nor in a process
 * the table says is gone: one crash, kill or quit ends both. */
function checkPairs(world: CombinedWorld): void {
  for (const { session, slot } of world.pairs) {
    const instance = session.instance;
    if (instance === undefined) continue;
    if (world.mail.table.status(instance.pid) !== "running") {
      world.violations.push(`${session.label}'s mailbox engine runs in pid ${instance.pid}, which is gone`);
    }
    if (!slot.processes.some((p) => p.alive && p.pid === instance.pid)) {
      world.violations.push(`${session.label}'s mailbox engine runs in pid ${instance.pid} without its bus engine`);
    }
  }
}

function checkStep(world: CombinedWorld): void {
  syncTime(world);
  checkPairs(world);
  checkMailStep(world.mail);
  checkBusStep(world.bus);
}

async function runSteps(world: CombinedWorld): Promise<void> {
  const { mail, bus } = world;
  // The pairs start with their mail sessions (the hooks start their bus engines in the same pid).
  for (const session of mail.sessions) startSession(mail, session);
  for (const slot of bus.slots) if (slot.processes.length === 0) startProcess(bus, slot);
  advance(mail, 0);
  for (let step = 0; step < combinedStepsPerSeed && world.violations.length === 0; step++) {
    bus.step = step;
    if (mail.diskFullSteps > 0) mail.diskFullSteps--;
    const what = mail.prng.nextFloat() < mailShare ? `mail: ${await randomStep(mail)}` : `bus: ${busStep(bus)}`;
    await flushMicrotasks();
    // What one scheduler did to a pair's process (a stop, a hang, a release) reaches its other engine.
    syncFrozen(world);
    reapMail(mail);
    reapBus(bus);
    world.log.push(what);
    traceStep(step, what);
    checkStep(world);
  }
  if (world.violations.length > 0) return;
  // The quiet end: nothing dies or hangs any more; the mail world quiesces (time passes for every
  // ask and poll), then the bus's timers all run once more.
  for (const proc of liveProcesses(bus)) {
    proc.crash.arm(Number.POSITIVE_INFINITY);
    unhang(bus, proc);
  }
  syncFrozen(world);
  await quiesce(mail);
  quietEnd(bus);
  reapMail(mail);
  checkStep(world);
  checkQuiet(mail);
}
