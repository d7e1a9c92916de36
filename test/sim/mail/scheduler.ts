// One seeded schedule: users type and send, agents call tools and settle, processes crash and
// restart, watch events drop, pids get reused, the clock jumps. Every choice comes from the seed.

import { askWaitMs } from "../../../src/domain/mail/limits.js";
import { pick } from "../shared/pick.js";
import { trace } from "../shared/trace.js";
import { faultStep } from "./fault-steps.js";
import { advance, type Instance, killSession, type Session, setStopped, startSession, type World } from "./world.js";

function live(world: World): Session[] {
  return world.sessions.filter((s) => s.instance !== undefined);
}

function peerOf(world: World, session: Session): Session | undefined {
  return pick(
    world,
    world.sessions.filter((s) => s.address !== session.address),
  );
}

/** Enters queued mail into the conversation: Pi does this right before the next model call. */
function enterQueue(session: Session, instance: Instance): void {
  for (const mail of instance.agent.queue.splice(0)) {
    instance.agent.show(mail.details.mailId);
    trace(mail.details.mailId, () => `entered ${session.label}`);
    instance.engine.messageEntered(mail.details.mailId);
  }
}

function settle(session: Session, instance: Instance, outcome: "done" | "stopped" | "failed", world: World): void {
  trace(process.env.SIM_TRACE ?? "", () => `${session.label} settles ${outcome}`);
  const text = `answer of ${session.label} at ${world.monoMs}`;
  instance.agent.running = false;
  instance.agent.flushQuiet();
  if (outcome === "done") instance.engine.runSettled({ kind: "done", text });
  else if (outcome === "stopped") instance.engine.runSettled({ kind: "stopped", text });
  else instance.engine.runSettled({ kind: "failed", error: "scripted failure", text });
  if (instance.agent.queue.length > 0) instance.agent.startRequested = true;
}

function startAsk(world: World, session: Session, instance: Instance): void {
  const peer = peerOf(world, session);
  if (peer === undefined) return;
  const controller = new AbortController();
  const ask: NonNullable<Instance["ask"]> = {
    id: undefined,
    startedMonoMs: world.monoMs,
    controller,
    outcome: undefined,
  };
  instance.ask = ask;
  const to = world.prng.nextFloat() < 0.5 ? peer.name : peer.address;
  void instance.engine.ask(to, `question from ${session.label}`, controller.signal).then((result) => {
    if (result.isErr()) ask.outcome = "refused";
    else {
      ask.id = result.value.sent.envelope.id;
      ask.outcome = result.value.outcome;
      // Like Pi: the answer enters the session as the tool's result, unless the process died first.
      const outcome = result.value.outcome;
      if (outcome.kind === "answered" && instance.agent.alive && !instance.crash.crashed) {
        instance.agent.show(outcome.envelope.id);
        instance.engine.messageEntered(outcome.envelope.id);
      }
    }
  });
}

/** One model call of a running session: enter queued mail, then act. */
export function agentStep(world: World, session: Session, forceDone: boolean): void {
  const instance = session.instance;
  if (instance === undefined || instance.stopped) return;
  const { agent, engine } = instance;
  if (agent.startRequested && !agent.running) {
    agent.startRequested = false;
    agent.running = true;
    engine.runStarted();
    enterQueue(session, instance);
    return;
  }
  if (!agent.running) return;
  if (instance.ask !== undefined) {
    if (instance.ask.outcome === undefined) return; // the tool call is still waiting
    instance.ask = undefined;
  }
  enterQueue(session, instance);
  const roll = forceDone ? 0 : world.prng.nextFloat();
  if (roll < 0.5) settle(session, instance, "done", world);
  else if (roll < 0.62) {
    const peer = peerOf(world, session);
    if (peer !== undefined)
      engine.send(world.prng.nextFloat() < 0.7 ? peer.address : peer.name, `note from ${session.label}`);
  } else if (roll < 0.77) startAsk(world, session, instance);
  else if (roll < 0.9) {
    const open = [...session.transcript.shown].filter((id) => instance.owed.has(id));
    const id = pick(world, open);
    if (id !== undefined) engine.reply(id, `direct answer from ${session.label}`);
  } else settle(session, instance, "failed", world);
}

/** The user presses Esc: a waiting ask stops, queued mail lands or is dropped, the run settles stopped. */
async function userStop(world: World, session: Session, instance: Instance): Promise<void> {
  if (!instance.agent.running) return;
  instance.ask?.controller.abort();
  await flushMicrotasks();
  instance.ask = undefined;
  if (world.prng.nextFloat() < 0.6) enterQueue(session, instance);
  else {
    for (const m of instance.agent.queue.splice(0)) {
      session.transcript.dropped.add(m.details.mailId);
      trace(m.details.mailId, () => "dropped by stop");
    }
  }
  settle(session, instance, "stopped", world);
}

export async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

export async function randomStep(world: World): Promise<string> {
  const roll = world.prng.nextFloat();
  const session = pick(world, world.sessions)!;
  const instance = session.instance;
  if (instance === undefined) {
    if (roll < 0.3) {
      startSession(world, session);
      return `restart ${session.label}`;
    }
    advance(world, 1 + world.prng.nextInt(400));
    return "tick";
  }
  if (instance.stopped) {
    // Nobody types into a stopped session: it is continued (fg), killed, or left stopped a while.
    if (roll < 0.3) setStopped(world, instance, false);
    else if (roll < 0.35) killSession(world, session, "crash");
    else advance(world, 1 + world.prng.nextInt(400));
    return `stopped ${session.label}: ${instance.stopped ? "waits" : "continued"}`;
  }
  if (roll < 0.12) {
    const peer = peerOf(world, session);
    if (peer === undefined) return "noop";
    const to = [peer.address, peer.name, peer.address.slice(0, 8)][world.prng.nextInt(3)]!;
    instance.engine.request(to, `request from ${session.label}`, "command");
    return `request ${session.label} -> ${peer.name}`;
  }
  if (roll < 0.2) {
    instance.engine.input();
    if (!instance.agent.running) instance.agent.startRequested = true;
    return `input ${session.label}`;
  }
  if (roll < 0.55) {
    agentStep(world, session, false);
    return `agent ${session.label}`;
  }
  if (roll < 0.6) {
    await userStop(world, session, instance);
    return `stop ${session.label}`;
  }
  if (roll < 0.63) {
    instance.crash.arm(world.prng.nextInt(12));
    return `arm crash ${session.label}`;
  }
  if (roll < 0.64) {
    // A crash aimed at the window between claiming mail and showing it.
    const peer = peerOf(world, session);
    if (peer?.instance === undefined) return "noop";
    peer.instance.engine.request(session.address, `request from ${peer.name}`, "command");
    instance.crash.arm(world.prng.nextInt(30));
    instance.engine.scan();
    return `crash mid-claim ${session.label}`;
  }
  if (roll < 0.645) {
    killSession(world, session, "shutdown");
    return `shutdown ${session.label}`;
  }
  if (roll < 0.655) {
    killSession(world, session, "crash");
    if (world.prng.nextFloat() < 0.5) world.table.reuse(instance.pid);
    return `kill -9 ${session.label}`;
  }
  if (roll < 0.665) {
    world.clock.jump(world.prng.nextFloat() < 0.5 ? askWaitMs + 1000 : -60_000);
    return "clock jump";
  }
  if (roll < 0.675) {
    instance.engine.renamed(world.prng.nextFloat() < 0.3 ? peerOf(world, session)?.name : session.name);
    return `rename ${session.label}`;
  }
  if (roll < 0.68) {
    instance.engine.prune();
    return `prune ${session.label}`;
  }
  if (roll < 0.7) {
    instance.engine.scan();
    return `scan ${session.label}`;
  }
  if (roll < 0.71) {
    setStopped(world, instance, true);
    return `ctrl-z ${session.label}`;
  }
  // The faults of the mailbox hardening: failed reads after a claim, a full disk, floods, prunes
  // racing sends, twin processes.
  if (roll >= 0.935) return faultStep(world, session, instance);
  advance(world, world.prng.nextFloat() < 0.01 ? askWaitMs / 2 : 1 + world.prng.nextInt(400));
  return "tick";
}

/** Reaps processes that crashed during the last step. */
export function reap(world: World): void {
  for (const session of live(world)) {
    if (session.instance?.crash.crashed === true) killSession(world, session, "crash");
  }
}
