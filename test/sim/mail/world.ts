// The whole multi-session world in one process: one machine (memfs volume, virtual clock, process
// table, watcher, seeded generator; test/shared/machine.ts), N sessions each with its own engine,
// fake agent and crashable view of the disk. The world reaches the volume through a recording fs that
// notes every envelope the moment it is published.
import type { Volume } from "memfs";
import { createFsMailStore } from "../../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import type { ManualWatcher } from "../../../src/adapters/memory/manual-watcher.js";
import { memoryFsUid } from "../../../src/adapters/memory/memory-fs.js";
import type { ProcessTable } from "../../../src/adapters/memory/process-table.js";
import { createSeededEntropy, type Prng } from "../../../src/adapters/memory/seeded-entropy.js";
import type { VirtualClock } from "../../../src/adapters/memory/virtual-clock.js";
import type { Address } from "../../../src/domain/mail/address.js";
import type { ConfigSource } from "../../../src/domain/mail/config.js";
import { type AskOutcome, createMailboxEngine, type MailboxEngine } from "../../../src/domain/mail/engine/index.js";
import { decodeEnvelope, type Envelope } from "../../../src/domain/mail/envelope.js";
import type { Clock, TimerHandle } from "../../../src/ports/shared/clock.js";
import { createMachine, type Machine } from "../../shared/machine.js";
import { type CrashSwitch, createFaultyFs, type Interleave, type ReadFaults } from "../shared/faulty-fs.js";
import { trace } from "../shared/trace.js";
import { createFakeAgent, createTranscript, type FakeAgent, type Transcript } from "./fake-agent.js";
import { observeProcess } from "./process-observer.js";

export const mailRoot = "/state/pi-session-mail";
export const configPath = "/agent/session-mail.json";
export const hopLimit = 3;
export const pollMs = 1000;
export const sandboxPidNamespace = "pid:[4026532389]";

export interface AskInFlight {
  id: string | undefined;
  startedMonoMs: number;
  controller: AbortController;
  outcome: AskOutcome | "refused" | undefined;
}

export interface Instance {
  pid: number;
  engine: MailboxEngine;
  agent: FakeAgent;
  crash: CrashSwitch;
  /** Reads of claimed mail that fail (EMFILE, ENOMEM, EIO). */
  reads: ReadFaults;
  /** Another process's step between two fs calls of this one. */
  interleave: Interleave;
  timers: Set<TimerHandle>;
  ask: AskInFlight | undefined;
  /** Requests and asks this process showed or had taken over (answers it owes). */
  owed: Set<string>;
  /** SIGSTOP: probes say so and its agent takes no step; its timers still fire (only what the
   * others see is modelled, not the freeze). */
  stopped: boolean;
}

export interface Session {
  index: number;
  address: Address;
  name: string;
  /** The name in the log: a twin is the name and a prime. */
  label: string;
  /** A second process on another session's id (pi -c in two panes): same address, same session file. */
  twinOf: Session | undefined;
  cwd: string;
  transcript: Transcript;
  instance: Instance | undefined;
  /** The listener of this session takes messages over instead of showing them. */
  takesOverMessages: boolean;
  /** Its processes run in this pid namespace (a sandbox); undefined: the host's. */
  pidNamespace: string | undefined;
}

export interface World {
  seed: number;
  prng: Prng;
  clock: VirtualClock;
  monoMs: number;
  table: ProcessTable;
  watcher: ManualWatcher;
  fs: FsLike;
  vol: Volume;
  files: () => Record<string, string | null>;
  sessions: Session[];
  /** Every envelope that became visible in some new/, in order. */
  published: Envelope[];
  /** Envelopes published and not yet seen to reach their recipient, by id, with their file names. */
  unreached: Map<string, { envelope: Envelope; name: string }>;
  /** Files in new/ and cur/ already checked whole. */
  verified: Set<string>;
  /** Per inbox, each process that claimed from it and the sequence number of its latest claim. */
  claimers: Map<string, Map<Instance, number>>;
  claimCount: number;
  /** Processes that published their session's running record (a guest twin, or a start on a full
   * disk, has not). */
  recordWriters: WeakSet<Instance>;
  /** When a running session's record was first seen missing (see the invariant). */
  recordMissingSince: Map<Instance, number>;
  /** Steps left while the volume is full. */
  diskFullSteps: number;
  /** Mail ids whose recipient process died or shut down while it owed their answer. */
  exempt: Set<string>;
  violations: string[];
  log: string[];
  /** Entries the volume may hold outside the mail root, by folder (checked after every step). */
  outside: Record<string, string[]>;
  /** Set by the combined simulator, where one process may run a bus engine as well. */
  hooks?: ProcessHooks | undefined;
}

/** What the rest of a process does when this world starts or ends its mailbox engine. */
export interface ProcessHooks {
  /** The crash switch of another engine already running in process `pid`, to share. */
  faultsOf(pid: number): CrashSwitch | undefined;
  /** The mailbox engine of `session` has started in `instance.pid`. */
  started(session: Session, instance: Instance): void;
  /** The process of `instance` is about to end (`how`); the table is updated after this. */
  ending(session: Session, instance: Instance, how: "crash" | "shutdown"): void;
}

/** Records every envelope the moment its rename into a new/ succeeds: the ground truth of what was sent. */
function recordingFs(fs: FsLike, vol: Volume, world: () => World): FsLike {
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "renameSync" || typeof value !== "function") return value;
      return (from: string, to: string) => {
        (value as (a: string, b: string) => void).call(target, from, to);
        // Like inotify: a rename into or out of a new/ is a hint naming the entry, delivered late
        // (the watcher is delayed; a tick flushes it), or dropped.
        for (const path of [from, to]) {
          const at = /^(.*\/new)\/([^/]+)$/.exec(path);
          if (at !== null) world().watcher.notify(at[1]!, at[2]!);
        }
        if (/\/new\/[^/]+$/.test(to) && !from.includes("/new/")) {
          const text = String(vol.readFileSync(to, "utf8"));
          const decoded = decodeEnvelope(text);
          if (decoded.isOk()) {
            world().published.push(decoded.value);
            world().unreached.set(decoded.value.id, {
              envelope: decoded.value,
              name: to.slice(to.lastIndexOf("/") + 1),
            });
            trace(decoded.value.id, () => `published to ${decoded.value.to.slice(0, 8)}`);
          } else world().violations.push(`a torn or invalid envelope was published at ${to}`);
        }
      };
    },
  });
}

function clockFor(clock: VirtualClock, timers: Set<TimerHandle>, alive: () => boolean): Clock {
  const track = (make: (fn: () => void) => TimerHandle, fn: () => void): TimerHandle => {
    const handle: TimerHandle = make(() => {
      timers.delete(handle);
      if (alive()) fn();
    });
    timers.add(handle);
    return handle;
  };
  return {
    now: () => clock.now(),
    monotonic: () => clock.monotonic(),
    setTimer: (ms, fn) => track((f) => clock.setTimer(ms, f), fn),
    defer: (fn) => track((f) => clock.defer(f), fn),
  };
}

/** Before the real date: memfs stamps mtimes with the real clock, so no folder ever looks 30 days old
 * by age alone; the schedule exercises pruning through /mailbox prune (no age rule). */
const startMs = 1_700_000_000_000;

export function createWorld(
  seed: number,
  sessionCount: number,
  machine: Machine = createMachine({ seed, startMs }),
): World {
  const { prng, fs, vol } = machine;
  const world: World = {
    seed,
    prng,
    clock: machine.clock,
    monoMs: 0,
    table: machine.table,
    watcher: machine.watcher,
    fs: recordingFs(fs, vol, () => world),
    vol,
    files: () => vol.toJSON() as Record<string, string | null>,
    sessions: [],
    published: [],
    unreached: new Map(),
    verified: new Set(),
    claimers: new Map(),
    claimCount: 0,
    recordWriters: new WeakSet(),
    recordMissingSince: new Map(),
    diskFullSteps: 0,
    exempt: new Set(),
    violations: [],
    log: [],
    outside: { "/": ["agent", "state"], "/state": ["pi-session-mail"], "/agent": ["session-mail.json"] },
  };
  fs.mkdirSync("/agent", { recursive: true, mode: 0o700 });
  vol.writeFileSync(configPath, JSON.stringify({ hopLimit }));
  const entropy = createSeededEntropy(seed);
  for (let i = 0; i < sessionCount; i++) {
    world.sessions.push({
      index: i,
      address: entropy.uuid() as Address,
      name: `s${i}`,
      label: `s${i}`,
      twinOf: undefined,
      cwd: `/work/s${i}`,
      transcript: createTranscript(),
      instance: undefined,
      takesOverMessages: i === 0 && seed % 3 === 0,
      // Every other seed runs one session in a sandbox: the others cannot check its pid, nor it theirs.
      pidNamespace: i === 1 && seed % 2 === 0 ? sandboxPidNamespace : undefined,
    });
  }
  world.watcher.setDropFilter(() => prng.nextFloat() < 0.3);
  world.watcher.setDelayed(true);
  return world;
}

/** Starts a process for `session`, or (`pid`) starts its mailbox engine in a process that runs. */
export function startSession(world: World, session: Session, pid?: number): void {
  const identity =
    pid !== undefined
      ? world.table.probeFor(pid).self()
      : world.table.spawn(session.pidNamespace === undefined ? {} : { pidNamespace: session.pidNamespace });
  const timers = new Set<TimerHandle>();
  let self: Instance | undefined;
  const observed = observeProcess(world, session, () => self);
  const { fs, crash, reads, interleave } = createFaultyFs(observed, {
    choose: (n) => world.prng.nextInt(n),
    diskFull: () => world.diskFullSteps > 0,
    sameProcessAs: world.hooks?.faultsOf(identity.pid),
  });
  const agent = createFakeAgent(session.transcript, (v) => world.violations.push(`${session.label}: ${v}`));
  const alive = () => agent.alive && !crash.crashed;
  const store = createFsMailStore({ fs, root: mailRoot, uid: memoryFsUid });
  const engine = createMailboxEngine({
    store,
    probe: world.table.probeFor(identity.pid),
    clock: clockFor(world.clock, timers, alive),
    // A killed process hears no more hints.
    watcher: { watch: (dir, onHint) => world.watcher.watch(dir, (name) => (alive() ? onHint(name) : undefined)) },
    entropy: createSeededEntropy(world.seed * 7919 + identity.pid + (pid === undefined ? 0 : hashOf(identity.started))),
    host: agent,
    config: { path: configPath, read: () => readConfigFile(world.vol, crash) },
    durable: true,
    pollIntervalMs: pollMs,
    watch: true,
  });
  const instance: Instance = {
    pid: identity.pid,
    engine,
    agent,
    crash,
    reads,
    interleave,
    timers,
    ask: undefined,
    owed: new Set(),
    stopped: false,
  };
  engine.onInbound((mail) => {
    if (mail.envelope.kind !== "reply" && mail.envelope.kind !== "message") instance.owed.add(mail.envelope.id);
    if (session.takesOverMessages && mail.envelope.kind === "message") {
      mail.handled = true;
      session.transcript.takenOver.add(mail.envelope.id);
    }
  });
  self = instance;
  session.instance = instance;
  trace(process.env.SIM_TRACE ?? "", () => `${session.label} starts (pid ${instance.pid})`);
  engine.sessionStarted({ address: session.address, name: session.name, cwd: session.cwd });
  world.hooks?.started(session, instance);
}

/** A process started into a pid that runs already (the combined simulator) may run where an earlier
 * one of this world ran: its ids are seeded by its start token too, unique per process. */
function hashOf(token: string | undefined): number {
  let hash = 0;
  for (const char of token ?? "") hash = (hash * 31 + char.charCodeAt(0)) % 1_000_003;
  return hash * 10_007;
}

function readConfigFile(vol: Volume, crash: CrashSwitch): ConfigSource {
  if (crash.crashed) return { kind: "unreadable", reason: "the process is gone" };
  return { kind: "text", text: String(vol.readFileSync(configPath, "utf8")) };
}

/** SIGSTOP or SIGCONT of a session's process. */
export function setStopped(world: World, instance: Instance, stopped: boolean): void {
  if (stopped) world.table.stop(instance.pid);
  else world.table.resume(instance.pid);
  instance.stopped = stopped;
}

/** The process dies: no shutdown, its timers never fire, its queue is lost, its record stays. */
export function killSession(world: World, session: Session, how: "crash" | "shutdown"): void {
  const instance = session.instance;
  if (instance === undefined) return;
  world.hooks?.ending(session, instance, how);
  // Another engine of the process may have ended it in the table already (the combined simulator).
  const running = world.table.status(instance.pid) === "running";
  if (how === "shutdown" && !instance.crash.crashed) {
    instance.ask?.controller.abort();
    instance.engine.shutdown();
    if (running) world.table.exit(instance.pid);
  } else if (running) {
    world.table.crash(instance.pid);
  }
  instance.agent.alive = false;
  for (const timer of instance.timers) timer.cancel();
  // Only mail that reached the session is owed from memory (held or unanswered, or dropped by the
  // user's stop and held or being answered then); unread mail must survive.
  const { shown, dropped } = session.transcript;
  for (const id of instance.owed) if (shown.has(id) || dropped.has(id)) world.exempt.add(id);
  trace(process.env.SIM_TRACE ?? "", () => `${session.label} ${how}`);
  session.instance = undefined;
}

export function advance(world: World, ms: number): void {
  world.monoMs += ms;
  world.clock.advance(ms);
  world.clock.runDeferred();
  world.watcher.flush();
}

/** Paths of the entries waiting in every new/ (or cur/). */
export function inboxFiles(world: World, box: "new" | "cur"): string[] {
  const list = (path: string): string[] => {
    try {
      return (world.vol.readdirSync(path) as string[]).map(String);
    } catch {
      return [];
    }
  };
  return list(mailRoot).flatMap((address) =>
    list(`${mailRoot}/${address}/${box}`).map((n) => `${mailRoot}/${address}/${box}/${n}`),
  );
}
