// The whole multi-session world in one process: one memfs volume, one virtual clock, one process
// table, one watcher, N sessions each with its own engine, fake agent and crashable view of the disk.
import type { Volume } from "memfs";
import type { FsLike } from "../../src/adapters/fs/fs-like.js";
import { createFsMailStore } from "../../src/adapters/fs/fs-mail-store.js";
import { createManualWatcher, type ManualWatcher } from "../../src/adapters/memory/manual-watcher.js";
import { createMemoryFs } from "../../src/adapters/memory/memory-fs.js";
import { createProcessTable, type ProcessTable } from "../../src/adapters/memory/process-table.js";
import { createPrng, createSeededEntropy, type Prng } from "../../src/adapters/memory/seeded-entropy.js";
import { createVirtualClock, type VirtualClock } from "../../src/adapters/memory/virtual-clock.js";
import type { Address } from "../../src/domain/mail/address.js";
import type { ConfigSource } from "../../src/domain/mail/config.js";
import { type AskOutcome, createMailboxEngine, type MailboxEngine } from "../../src/domain/mail/engine/index.js";
import { decodeEnvelope, type Envelope } from "../../src/domain/mail/envelope.js";
import type { Clock, TimerHandle } from "../../src/ports/clock.js";
import { createFakeAgent, type FakeAgent, type Transcript } from "./fake-agent.js";
import { type CrashSwitch, createFaultyFs } from "./faulty-fs.js";
import { trace } from "./trace.js";

export const mailRoot = "/state/pi-session-mail";
export const configPath = "/agent/session-mail.json";
export const hopLimit = 3;
export const pollMs = 1000;

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
  timers: Set<TimerHandle>;
  ask: AskInFlight | undefined;
  /** Requests and asks this process showed or had taken over (answers it owes). */
  owed: Set<string>;
}

export interface Session {
  index: number;
  address: Address;
  name: string;
  cwd: string;
  transcript: Transcript;
  instance: Instance | undefined;
  /** The listener of this session takes messages over instead of showing them. */
  takesOverMessages: boolean;
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
  /** Files in new/ and cur/ already checked whole. */
  verified: Set<string>;
  /** Mail ids whose recipient process died or shut down while it owed their answer. */
  exempt: Set<string>;
  violations: string[];
  log: string[];
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
    setTimer: (ms, fn) => track((f) => clock.setTimer(ms, f), fn),
    defer: (fn) => track((f) => clock.defer(f), fn),
  };
}

export function createWorld(seed: number, sessionCount: number): World {
  const prng = createPrng(seed);
  const { fs, vol } = createMemoryFs();
  const world: World = {
    seed,
    prng,
    // Before the real date: memfs stamps mtimes with the real clock, so no folder ever looks 30 days
    // old by age alone; the schedule exercises pruning through /mailbox prune (no age rule).
    clock: createVirtualClock(1_700_000_000_000),
    monoMs: 0,
    table: createProcessTable(),
    watcher: createManualWatcher(),
    fs: recordingFs(fs, vol, () => world),
    vol,
    files: () => vol.toJSON() as Record<string, string | null>,
    sessions: [],
    published: [],
    verified: new Set(),
    exempt: new Set(),
    violations: [],
    log: [],
  };
  fs.mkdirSync("/agent", { recursive: true, mode: 0o700 });
  vol.writeFileSync(configPath, JSON.stringify({ hopLimit }));
  const entropy = createSeededEntropy(seed);
  for (let i = 0; i < sessionCount; i++) {
    world.sessions.push({
      index: i,
      address: entropy.uuid() as Address,
      name: `s${i}`,
      cwd: `/work/s${i}`,
      transcript: { shown: new Set() },
      instance: undefined,
      takesOverMessages: i === 0 && seed % 3 === 0,
    });
  }
  world.watcher.setDropFilter(() => prng.nextFloat() < 0.3);
  world.watcher.setDelayed(true);
  return world;
}

export function startSession(world: World, session: Session): void {
  const identity = world.table.spawn();
  const timers = new Set<TimerHandle>();
  const { fs, crash } = createFaultyFs(world.fs);
  const agent = createFakeAgent(session.transcript, (v) => world.violations.push(`${session.name}: ${v}`));
  const alive = () => agent.alive && !crash.crashed;
  const store = createFsMailStore({ fs, root: mailRoot });
  const engine = createMailboxEngine({
    store,
    probe: world.table.probeFor(identity.pid),
    clock: clockFor(world.clock, timers, alive),
    // A killed process hears no more hints.
    watcher: { watch: (dir, onHint) => world.watcher.watch(dir, (name) => (alive() ? onHint(name) : undefined)) },
    entropy: createSeededEntropy(world.seed * 7919 + identity.pid),
    host: agent,
    config: { path: configPath, read: () => readConfigFile(world.vol, crash) },
    durable: true,
    pollIntervalMs: pollMs,
    watch: true,
  });
  const instance: Instance = { pid: identity.pid, engine, agent, crash, timers, ask: undefined, owed: new Set() };
  engine.onInbound((mail) => {
    if (mail.envelope.kind !== "reply" && mail.envelope.kind !== "message") instance.owed.add(mail.envelope.id);
    if (session.takesOverMessages && mail.envelope.kind === "message") mail.handled = true;
  });
  session.instance = instance;
  trace(process.env.SIM_TRACE ?? "", () => `${session.name} starts`);
  engine.sessionStarted({ address: session.address, name: session.name, cwd: session.cwd });
}

function readConfigFile(vol: Volume, crash: CrashSwitch): ConfigSource {
  if (crash.crashed) return { kind: "unreadable", reason: "the process is gone" };
  return { kind: "text", text: String(vol.readFileSync(configPath, "utf8")) };
}

/** The process dies: no shutdown, its timers never fire, its queue is lost, its record stays. */
export function killSession(world: World, session: Session, how: "crash" | "shutdown"): void {
  const instance = session.instance;
  if (instance === undefined) return;
  if (how === "shutdown" && !instance.crash.crashed) {
    instance.ask?.controller.abort();
    instance.engine.shutdown();
    world.table.exit(instance.pid);
  } else {
    world.table.crash(instance.pid);
  }
  instance.agent.alive = false;
  for (const timer of instance.timers) timer.cancel();
  // Only mail the model had read is owed from memory (held or unanswered); unread mail must survive.
  for (const id of instance.owed) if (session.transcript.shown.has(id)) world.exempt.add(id);
  trace(process.env.SIM_TRACE ?? "", () => `${session.name} ${how}`);
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
