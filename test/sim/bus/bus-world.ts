// The bus world in one process: one machine (test/shared/machine.ts) whose memfs volume holds two
// worktrees of one repository and the bus folder, whose virtual clock keeps Date on it
// (wall-clock.ts), with one process table and one watcher; and slots of sessions whose processes each
// run a bus engine through their own crashable view of the disk.
import type { Volume } from "memfs";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import type { ManualWatcher } from "../../../src/adapters/memory/manual-watcher.js";
import type { ProcessTable } from "../../../src/adapters/memory/process-table.js";
import { createRepoTable, type RepoTable } from "../../../src/adapters/memory/repo-table.js";
import { createSeededEntropy, type Prng } from "../../../src/adapters/memory/seeded-entropy.js";
import type { VirtualClock } from "../../../src/adapters/memory/virtual-clock.js";
import type { BusEngine } from "../../../src/domain/bus/engine/index.js";
import type { TimerHandle } from "../../../src/ports/shared/clock.js";
import { createMachine, type Machine } from "../../shared/machine.js";
import type { CrashSwitch, Interleave } from "../shared/faulty-fs.js";
import type { BusAgent } from "./bus-agent.js";
import { createLedger, type Ledger } from "./bus-ledger.js";
import { recordingFs } from "./recording-fs.js";
import { setWallMs } from "./wall-clock.js";

export const startMs = 1_700_000_000_000;
/** Two worktrees of one repository: claims from both roots are keyed alike. */
export const repoCommon = "/code/app/.git";
export const repoRoots = ["/code/app", "/code/app-wt"] as const;
export const agentDir = "/agent";

export interface BusProcess {
  /** Which process this is in the world, for the log. */
  serial: number;
  pid: number;
  slot: BusSlot;
  /** The session id this engine serves. */
  id: string;
  engine: BusEngine;
  agent: BusAgent;
  crash: CrashSwitch;
  interleave: Interleave;
  timers: Set<TimerHandle>;
  /** Alive: not killed, not crashed, not exited. */
  alive: boolean;
  /** Hung: alive, but nothing of it runs: its timers and hints wait in `held` until it is released. */
  hung: boolean;
  held: Array<() => void>;
  /** Claim files this process linked into claims/ (names), for the all-or-nothing check. */
  linked: string[];
  /** The step at which it started, and at which it ended (undefined while it lives). */
  bornAt: number;
  diedAt: number | undefined;
}

/** A session of the schedule: a cwd in one worktree, an id (new ones after /new or /fork), and the
 * processes running it now (two while a second pane shares the id). */
export interface BusSlot {
  index: number;
  name: string;
  id: string;
  cwd: string;
  /** Pi's session name: the derived label follows it. */
  sessionName: string | undefined;
  processes: BusProcess[];
  /** The session id never changes (/new and /fork are not scheduled): in the combined simulator a
   * mailbox engine serves the same id in the same process. */
  keepsId?: boolean;
  /** Its processes run in this pid namespace (a sandbox); undefined: the host's. In the combined
   * simulator, a mail session's sandbox is its bus engine's too. */
  pidNamespace?: string | undefined;
}

/** What the rest of a process does when this world starts or ends its bus engine. */
export interface BusProcessHooks {
  /** The crash switch of another engine already running in process `pid`, to share. */
  faultsOf(pid: number): CrashSwitch | undefined;
  /** A bus engine has started in `proc.pid`. */
  started(proc: BusProcess): void;
  /** The process of `proc` is gone (`crash`: killed or died at an fs call) or quit; the table says so. */
  ended(proc: BusProcess, how: "crash" | "quit"): void;
}

export interface BusWorld {
  seed: number;
  prng: Prng;
  clock: VirtualClock;
  /** The latest wall time the world has shown (a backward jump does not lower it): the TTL rule. */
  maxWallMs: number;
  /** Every forward step of the wall clock so far, summed: no reader's trusted time is behind the
   * wall clock by more (how far an observed claim's lapse may be put off). */
  forwardJumpsMs: number;
  table: ProcessTable;
  watcher: ManualWatcher;
  repos: RepoTable;
  vol: Volume;
  /** The volume as every process sees it (hints raised, writes recorded), before its own faults. */
  fs: FsLike;
  busRoot: string;
  ids: { uuid(): string };
  slots: BusSlot[];
  processes: BusProcess[];
  ledger: Ledger;
  /** The step now running (for process lifetimes). */
  step: number;
  violations: string[];
  log: string[];
  /** Set by the combined simulator: the volume is full now, and one process may run a mailbox
   * engine as well. */
  diskFull?: (() => boolean) | undefined;
  hooks?: BusProcessHooks | undefined;
}

const keyFor = (repos: RepoTable): string => {
  const place = repos.resolve(repoRoots[0]);
  if (place.isErr()) throw new Error("the repository table lost its repository");
  return place.value.key;
};

/** The repository's tree, in both worktrees: some paths a claim names exist, some do not yet. */
function plantRepository(vol: Volume): void {
  for (const root of repoRoots) {
    vol.mkdirSync(`${root}/src/api`, { recursive: true, mode: 0o755 });
    vol.mkdirSync(`${root}/docs`, { recursive: true, mode: 0o755 });
    vol.writeFileSync(`${root}/src/api/routes.ts`, "");
    // One file under two names: claims of either collide by the file's identity.
    vol.linkSync(`${root}/src/api/routes.ts`, `${root}/docs/routes.ts`);
    vol.writeFileSync(`${root}/README.md`, "");
  }
  vol.mkdirSync(repoCommon, { recursive: true, mode: 0o755 });
  vol.mkdirSync(agentDir, { recursive: true, mode: 0o700 });
}

export function createBusWorld(seed: number, slotCount: number, machine?: Machine): BusWorld {
  // Date is at the start time before any node is made: memfs stamps each one with it.
  setWallMs(startMs);
  const { fs, vol, prng, clock, table, watcher } = machine ?? createMachine({ seed, startMs });
  plantRepository(vol);
  const repos = createRepoTable([{ common: repoCommon, roots: repoRoots }]);
  const busRoot = `${agentDir}/session-bus/${keyFor(repos)}`;
  const world: BusWorld = {
    seed,
    prng,
    clock,
    maxWallMs: startMs,
    forwardJumpsMs: 0,
    table,
    watcher,
    repos,
    vol,
    fs,
    busRoot,
    ids: createSeededEntropy(seed * 31 + 7),
    slots: [],
    processes: [],
    ledger: createLedger(),
    step: 0,
    violations: [],
    log: [],
  };
  world.fs = recordingFs(fs, world);
  // Every jump is counted, whichever world of a shared clock makes it.
  const jumpBy = clock.jump.bind(clock);
  clock.jump = (ms: number) => {
    if (ms > 0) world.forwardJumpsMs += ms;
    jumpBy(ms);
  };
  const cwds = [...repoRoots, `${repoRoots[0]}/src`, `${repoRoots[1]}/src`, `${repoRoots[1]}/docs`];
  for (let index = 0; index < slotCount; index++) {
    world.slots.push({
      index,
      name: `s${index}`,
      id: world.ids.uuid(),
      cwd: cwds[prng.nextInt(cwds.length)] as string,
      sessionName: prng.nextFloat() < 0.5 ? `s${index}` : undefined,
      processes: [],
    });
  }
  // Hints are late (a tick flushes them) and a share is dropped: the poll must do the work.
  world.watcher.setDropFilter(() => prng.nextFloat() < 0.3);
  world.watcher.setDelayed(true);
  return world;
}

/** Keeps Date on the wall clock: memfs stamps mtimes with it. */
function setWall(world: BusWorld, ms: number): void {
  setWallMs(ms);
  world.maxWallMs = Math.max(world.maxWallMs, ms);
}

/** Moves time forward, firing each due timer at its own time (Date set first), then late hints. */
export function advance(world: BusWorld, ms: number): void {
  const target = world.clock.now() + ms;
  for (let next = world.clock.nextTimerAt(); next !== undefined && next <= target; next = world.clock.nextTimerAt()) {
    setWall(world, Math.max(next, world.clock.now()));
    world.clock.advance(Math.max(0, next - world.clock.now()));
  }
  setWall(world, target);
  world.clock.advance(Math.max(0, target - world.clock.now()));
  world.clock.runDeferred();
  world.watcher.flush();
}

/** The wall clock jumps (NTP, a laptop waking): timers are not moved. */
export function jump(world: BusWorld, ms: number): void {
  world.clock.jump(ms);
  setWall(world, world.clock.now());
}

export function liveProcesses(world: BusWorld): BusProcess[] {
  return world.slots.flatMap((slot) => slot.processes.filter((p) => p.alive));
}
