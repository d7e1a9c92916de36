// One process of the bus world: a bus engine over the real fs store, seen through this process's
// crashable view of the volume, with a clock whose timers die with it and wait while it hangs.
import { createFsBusStore } from "../../../src/adapters/fs/bus/fs-bus-store.js";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { memoryFsUid } from "../../../src/adapters/memory/memory-fs.js";
import { createMemoryRealPaths, exactNames } from "../../../src/adapters/memory/memory-real-paths.js";
import { createSeededEntropy } from "../../../src/adapters/memory/seeded-entropy.js";
import { createBusEngine, type StartReason } from "../../../src/domain/bus/engine/index.js";
import type { Clock, TimerHandle } from "../../../src/ports/shared/clock.js";
import { createFaultyFs } from "../shared/faulty-fs.js";
import { createBusAgent } from "./bus-agent.js";
import type { BusProcess, BusSlot, BusWorld } from "./bus-world.js";

/** A process's clock: its timers stop when it dies, and wait while it hangs. */
function processClock(world: BusWorld, proc: () => BusProcess): Clock {
  const run = (fn: () => void) => {
    const p = proc();
    if (!p.alive) return;
    if (p.hung) p.held.push(fn);
    else fn();
  };
  const track = (make: (fn: () => void) => TimerHandle, fn: () => void): TimerHandle => {
    const handle: TimerHandle = make(() => {
      proc().timers.delete(handle);
      run(fn);
    });
    proc().timers.add(handle);
    return handle;
  };
  return {
    now: () => world.clock.now(),
    monotonic: () => world.clock.monotonic(),
    setTimer: (ms, fn) => track((f) => world.clock.setTimer(ms, f), fn),
    defer: (fn) => track((f) => world.clock.defer(f), fn),
  };
}

export interface StartOptions {
  /** Run in this pid (a reload or /new in the same process, or a reused pid); else a new one. */
  pid?: number | undefined;
  reason?: StartReason;
}

/** Starts a process for `slot` running a fresh engine; nothing joins (the spec's lazy join). */
export function startProcess(world: BusWorld, slot: BusSlot, options: StartOptions = {}): BusProcess {
  const spawned = () => world.table.spawn(slot.pidNamespace === undefined ? {} : { pidNamespace: slot.pidNamespace });
  const identity = options.pid === undefined ? spawned() : world.table.probeFor(options.pid).self();
  const serial = world.processes.length;
  let self: BusProcess | undefined;
  const me = () => self as BusProcess;
  const faulty = createFaultyFs(observeLinks(world.fs, me), {
    choose: (n) => world.prng.nextInt(n),
    diskFull: () => world.diskFull?.() ?? false,
    sameProcessAs: world.hooks?.faultsOf(identity.pid),
  });
  const place = world.repos.resolve(slot.cwd);
  if (place.isErr()) throw new Error(`no place for ${slot.cwd}`);
  const agent = createBusAgent(world, me);
  const engine = createBusEngine({
    store: createFsBusStore({
      fs: faulty.fs,
      root: world.busRoot,
      uid: memoryFsUid,
      entropy: createSeededEntropy(world.seed * 7919 + serial * 2 + 1),
    }),
    place: place.value,
    clock: processClock(world, me),
    entropy: createSeededEntropy(world.seed * 7919 + serial * 2),
    probe: world.table.probeFor(identity.pid),
    watcher: {
      watch: (dir, onHint) =>
        world.watcher.watch(dir, (name) => {
          const p = me();
          if (!p.alive) return;
          if (p.hung) p.held.push(() => onHint(name));
          else onHint(name);
        }),
    },
    realPaths: createMemoryRealPaths(world.vol, exactNames),
    hopLimit: () => 5,
    host: agent,
  });
  self = {
    serial,
    pid: identity.pid,
    slot,
    id: slot.id,
    engine,
    agent,
    crash: faulty.crash,
    interleave: faulty.interleave,
    timers: new Set(),
    alive: true,
    hung: false,
    held: [],
    linked: [],
    bornAt: world.step,
    diedAt: undefined,
  };
  world.processes.push(self);
  slot.processes.push(self);
  engine.sessionStarted({ id: slot.id, name: slot.sessionName }, options.reason ?? "startup");
  world.hooks?.started(self);
  return self;
}

/** Notes the claim files a process links into place, so a failed claim can be held to undoing them. */
function observeLinks(fs: FsLike, me: () => BusProcess): FsLike {
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "linkSync" || typeof value !== "function") return value;
      return (from: string, to: string) => {
        (value as (a: string, b: string) => void).call(target, from, to);
        if (to.includes("/claims/")) me().linked.push(to.slice(to.lastIndexOf("/") + 1));
      };
    },
  });
}

/** The process is gone without a word (kill -9, or it died at an fs call): its timers never fire,
 * its record and claims stay on disk. */
export function killProcess(world: BusWorld, proc: BusProcess): void {
  if (!proc.alive) return;
  world.table.crash(proc.pid);
  endProcess(world, proc);
  world.hooks?.ended(proc, "crash");
}

/** Marks a process ended and forgets its timers; the table entry is the caller's. */
export function endProcess(world: BusWorld, proc: BusProcess): void {
  proc.alive = false;
  proc.hung = false;
  proc.held = [];
  proc.diedAt = world.step;
  for (const timer of [...proc.timers]) timer.cancel();
  proc.timers.clear();
  proc.slot.processes = proc.slot.processes.filter((p) => p !== proc);
}

/** Releases a hung process: what waited runs now, in order. */
export function unhang(world: BusWorld, proc: BusProcess): void {
  if (!proc.hung) return;
  proc.hung = false;
  if (world.table.status(proc.pid) === "running") world.table.resume(proc.pid);
  for (const fn of proc.held.splice(0)) if (proc.alive && !proc.hung) fn();
}
