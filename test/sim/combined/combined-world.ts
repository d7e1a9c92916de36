// One world for both contexts: one machine (test/shared/machine.ts: memfs volume, process table,
// watcher, seeded generator) whose virtual clock is wrapped to keep Date on it, shared by a mail world
// (2-4 sessions) and a bus world (2-4 slots). Some sessions are both: one Pi process runs a mailbox
// engine and a bus engine under one session id and one pid, as Pi does with both extensions loaded.
// Those two engines share the process's faults (one crash counter: it dies between any two fs calls
// of either), start together, end together (a crash or kill -9 ends both, a quit shuts both down),
// and stop together (SIGSTOP or a hang freezes both). Each context reaches the volume through a guard
// that says when it writes inside the other's folder.
import { createMachine, type Machine } from "../../shared/machine.js";
import { endProcess, startProcess, unhang } from "../bus/bus-process.js";
import { agentDir, type BusProcess, type BusSlot, type BusWorld, createBusWorld, startMs } from "../bus/bus-world.js";
import { setWallMs } from "../bus/wall-clock.js";
import { createWorld, killSession, mailRoot, type Session, startSession, type World } from "../mail/world.js";
import { type ContextWrites, contextFs } from "./context-fs.js";
import { type SharedClock, sharedClock } from "./shared-clock.js";

/** Where every bus of the agent lives: the mail context never writes below it. */
export const busFolder = `${agentDir}/session-bus`;

/** A session that is both: its mail session and its bus slot, one id, one process at a time. */
export interface Pair {
  session: Session;
  slot: BusSlot;
  /** Whether that process was stopped or hung after the last step, and which pid it was. */
  frozen: boolean;
  frozenPid: number | undefined;
}

export interface CombinedWorld {
  seed: number;
  mail: World;
  bus: BusWorld;
  clock: SharedClock;
  pairs: Pair[];
  /** Writes each context made (the guard's proof that it sees both). */
  writes: { mail: ContextWrites; bus: ContextWrites };
  /** One list for both worlds and the guards. */
  violations: string[];
  log: string[];
}

export interface CombinedShape {
  mailSessions: number;
  busSlots: number;
  both: number;
}

/** 2-4 mail sessions, 2-4 bus slots, and 1-2 of them both (the first ones of each), from the seed. */
export function shapeOf(seed: number): CombinedShape {
  const mailSessions = 2 + (seed % 3);
  const busSlots = 2 + (Math.floor(seed / 3) % 3);
  return { mailSessions, busSlots, both: Math.min(1 + (Math.floor(seed / 9) % 2), mailSessions, busSlots) };
}

export function createCombinedWorld(seed: number, shape = shapeOf(seed)): CombinedWorld {
  setWallMs(startMs);
  const violations: string[] = [];
  const log: string[] = [];
  const writes = { mail: { count: 0 }, bus: { count: 0 } };
  const parts = createMachine({ seed, startMs });
  let bus: BusWorld | undefined;
  // One clock for both worlds, keeping Date (memfs's mtimes) and the bus world's latest wall time.
  const clock = sharedClock(parts.clock, (ms) => {
    setWallMs(ms);
    if (bus !== undefined) bus.maxWallMs = Math.max(bus.maxWallMs, ms);
  });
  const machine: Machine = { ...parts, clock };
  const mail = createWorld(seed, shape.mailSessions, {
    ...machine,
    fs: contextFs(parts.fs, "mail", busFolder, violations, writes.mail),
  });
  bus = createBusWorld(seed, shape.busSlots, {
    ...machine,
    fs: contextFs(parts.fs, "bus", mailRoot, violations, writes.bus),
  });
  mail.violations = violations;
  bus.violations = violations;
  mail.log = log;
  bus.log = log;
  // The volume holds the bus and the repositories besides the mail root and its config.
  mail.outside = {
    "/": ["agent", "code", "state"],
    "/state": ["pi-session-mail"],
    "/agent": ["session-bus", "session-mail.json"],
  };
  bus.diskFull = () => mail.diskFullSteps > 0;
  const pairs: Pair[] = [];
  for (let i = 0; i < shape.both; i++) {
    const session = mail.sessions[i]!;
    const slot = bus.slots[i]!;
    // One session id: the bus serves the mail session's.
    slot.id = session.address;
    slot.keepsId = true;
    slot.pidNamespace = session.pidNamespace;
    slot.name = `${session.name}+`;
    session.label = `${session.name}+`;
    pairs.push({ session, slot, frozen: false, frozenPid: undefined });
  }
  for (const slot of bus.slots) if (!pairs.some((p) => p.slot === slot)) slot.name = `b${slot.index}`;
  const world: CombinedWorld = { seed, mail, bus, clock, pairs, writes, violations, log };
  linkProcesses(world);
  return world;
}

const liveBusAt = (bus: BusWorld, pid: number): BusProcess[] => bus.processes.filter((p) => p.alive && p.pid === pid);

/** The hooks that make a pair's engines one process. */
function linkProcesses(world: CombinedWorld): void {
  const { mail, bus, pairs } = world;
  const pairOfSession = (session: Session) => pairs.find((p) => p.session === session);
  const pairOfSlot = (slot: BusSlot) => pairs.find((p) => p.slot === slot);
  mail.hooks = {
    faultsOf: (pid) => liveBusAt(bus, pid)[0]?.crash,
    started(session, instance) {
      const pair = pairOfSession(session);
      if (pair === undefined || liveBusAt(bus, instance.pid).length > 0) return;
      startProcess(bus, pair.slot, { pid: instance.pid });
    },
    ending(_session, instance, how) {
      for (const proc of liveBusAt(bus, instance.pid)) {
        // A quit ends both extensions' sessions; a crash ends both engines without a word.
        if (how === "shutdown" && !instance.crash.crashed) proc.engine.shutdown("quit");
        endProcess(bus, proc);
      }
    },
  };
  bus.hooks = {
    faultsOf: (pid) => mail.sessions.find((s) => s.instance?.pid === pid)?.instance?.crash,
    started(proc) {
      const pair = pairOfSlot(proc.slot);
      // With a mailbox engine running already, this is a second pane: it runs the bus only.
      if (pair === undefined || pair.session.instance !== undefined) return;
      startSession(mail, pair.session, proc.pid);
    },
    ended(proc, how) {
      for (const session of mail.sessions) {
        if (session.instance?.pid === proc.pid) killSession(mail, session, how === "quit" ? "shutdown" : "crash");
      }
    },
  };
}

/** SIGSTOP, SIGCONT, a hang or its end, made by either scheduler, is the whole process's. */
export function syncFrozen(world: CombinedWorld): void {
  for (const pair of world.pairs) {
    const instance = pair.session.instance;
    const proc = instance === undefined ? undefined : liveBusAt(world.bus, instance.pid)[0];
    if (instance === undefined || proc === undefined) {
      pair.frozenPid = undefined;
      continue;
    }
    if (pair.frozenPid !== instance.pid) {
      pair.frozenPid = instance.pid;
      pair.frozen = false;
    }
    if (instance.stopped !== pair.frozen) {
      // The mail scheduler stopped or continued it (the table says so already).
      if (instance.stopped) proc.hung = true;
      else unhang(world.bus, proc);
    } else if (proc.hung !== pair.frozen) {
      // The bus scheduler hung it (with or without SIGSTOP) or released it.
      instance.stopped = proc.hung;
    }
    pair.frozen = instance.stopped;
  }
}

/** The mail world's monotonic time is the shared clock's. */
export function syncTime(world: CombinedWorld): void {
  world.mail.monoMs = world.clock.monoMs();
}
