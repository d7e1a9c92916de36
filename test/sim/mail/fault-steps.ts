// The faults of the mailbox hardening (issue 8), as steps of a seeded schedule: a read that fails
// after the claim's rename, a full disk, a flood that makes the claim journal outgrow its page, a
// prune racing a send (or a restart) at any file system call of either side, a twin process.
import type { Instance, Session, World } from "./world.js";
import { killSession, startSession } from "./world.js";

/** A flood is enough mail for a journal past one page (a name and its JSON take 60 bytes). */
const floodMailMin = 70;
const floodMailSpread = 16;
/** Calls of a prune on the closed session's folder (its facts, then its removal) and of a send on
 * it (the folder and its boxes, the temp file, the rename), between which the other side runs. */
const pruneCallsMax = 18;
const sendCallsMax = 12;
/** Calls of the whole prune, at one of which the pruner may die. */
const pruneDeathCallsMax = 90;

function pick<T>(world: World, items: readonly T[]): T | undefined {
  return items.length === 0 ? undefined : items[world.prng.nextInt(items.length)];
}

function livePeers(world: World, ...not: Session[]): Session[] {
  return world.sessions.filter((s) => s.instance !== undefined && !not.some((n) => n.address === s.address));
}

export function faultStep(world: World, session: Session, instance: Instance): string {
  const roll = world.prng.nextFloat();
  if (roll < 0.3) return readFault(world, session, instance);
  if (roll < 0.45) {
    world.diskFullSteps = 1 + world.prng.nextInt(12);
    return `disk full for ${world.diskFullSteps} steps`;
  }
  // Floods are the dearest step (each leaves some 80 files behind for every later listing).
  if (roll < 0.53) return flood(world, session);
  return pruneRace(world, session, instance);
}

/** The next reads of claimed mail fail; half the time aimed at a claim that happens now, and then
 * sometimes the process dies before it reads the mail again. */
function readFault(world: World, session: Session, instance: Instance): string {
  const failures = 1 + world.prng.nextInt(3);
  instance.reads.failNext(failures);
  const aim = world.prng.nextFloat();
  if (aim >= 0.5) return `read fault ${session.label} x${failures}`;
  const peer = pick(world, livePeers(world, session));
  peer?.instance?.engine.request(session.address, `request from ${peer.label}`, "command");
  if (aim < 0.2) instance.crash.arm(world.prng.nextInt(30));
  instance.engine.scan();
  return `read fault ${session.label} x${failures} at a claim${aim < 0.2 ? ", then a crash" : ""}`;
}

/** Mail enough for a journal of more than a page, claimed on a full disk, or by a process that
 * dies at some call of the claim, or neither. */
function flood(world: World, target: Session): string {
  const sender = pick(world, livePeers(world, target));
  if (sender?.instance === undefined) return "noop";
  // Messages: a flood of requests read in one run gets one answer naming them all, which the product
  // refuses to write past 50 ids (in_reply_to's bound) and throws at the settle.
  const count = floodMailMin + world.prng.nextInt(floodMailSpread);
  for (let i = 0; i < count; i++) {
    if (sender.instance.engine.send(target.address, `flood ${i} from ${sender.label}`).isErr()) break;
  }
  const instance = target.instance;
  if (instance === undefined) return `flood of ${count} ${sender.label} -> closed ${target.label}`;
  const how = world.prng.nextInt(3);
  if (how === 0) world.diskFullSteps = 1 + world.prng.nextInt(6);
  if (how === 1) instance.crash.arm(world.prng.nextInt(80));
  instance.engine.scan();
  return `flood of ${count} ${sender.label} -> ${target.label}${[", disk full", ", crash armed", ""][how]}`;
}

/** A closed session whose folder a prune may remove, closing one first when there is none. */
function closedTarget(world: World, pruner: Session): Session | undefined {
  const closed = (s: Session) =>
    s.address !== pruner.address && world.sessions.every((o) => o.address !== s.address || o.instance === undefined);
  const found = pick(world, world.sessions.filter(closed));
  if (found !== undefined) return found;
  const target = pick(
    world,
    world.sessions.filter((s) => s.address !== pruner.address && s.twinOf === undefined),
  );
  if (target === undefined || world.sessions.some((o) => o.address === target.address && o !== target && o.instance))
    return undefined;
  killSession(world, target, world.prng.nextFloat() < 0.5 ? "shutdown" : "crash");
  return target;
}

/** `/mailbox prune` in one process while another sends to the closed session (by its full id),
 * once or twice, or while the closed session starts again (and perhaps is sent to as well), at any
 * file system calls of either side. Sometimes the pruner dies in the middle. */
function pruneRace(world: World, pruner: Session, instance: Instance): string {
  const target = closedTarget(world, pruner);
  if (target === undefined) return "noop";
  const sender = pick(world, livePeers(world, pruner, target));
  const send = () => sender?.instance?.engine.send(target.address, `note from ${sender.label} to ${target.label}`);
  const prune = () => instance.engine.prune();
  const dies = world.prng.nextFloat() < 0.3;
  const mode = sender === undefined ? 2 : world.prng.nextInt(3);
  const racer = sender?.instance;
  if (mode === 1 && racer !== undefined) {
    // The prune runs inside the send.
    racer.interleave.at(world.prng.nextInt(sendCallsMax), prune, target.address);
    if (dies) instance.crash.arm(world.prng.nextInt(pruneDeathCallsMax));
    send();
    for (const left of racer.interleave.disarm()) left();
    return `send ${sender?.label} -> closed ${target.label} racing a prune by ${pruner.label}${dies ? " (dies)" : ""}`;
  }
  const others = mode === 0 ? [send] : [() => startSession(world, target)];
  if (sender !== undefined && world.prng.nextFloat() < 0.5) others.push(send);
  for (const other of others) instance.interleave.at(world.prng.nextInt(pruneCallsMax), other, target.address);
  if (dies) instance.crash.arm(world.prng.nextInt(pruneDeathCallsMax));
  prune();
  for (const left of instance.interleave.disarm()) left();
  const what = `${mode === 0 ? "a send" : `the restart of ${target.label}`}${others.length > 1 ? " and a send" : ""}`;
  return `prune by ${pruner.label}${dies ? " (dies)" : ""} of closed ${target.label} racing ${what}`;
}

/** A second process on a session's id (pi -c in another pane): same address, same session file. */
export function startTwin(world: World, original: Session): string {
  const twin: Session = {
    ...original,
    index: world.sessions.length,
    label: `${original.label}'`,
    twinOf: original,
    instance: undefined,
  };
  world.sessions.push(twin);
  startSession(world, twin);
  return `twin ${twin.label} starts on ${original.label}'s id`;
}
