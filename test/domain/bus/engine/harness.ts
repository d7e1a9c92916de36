// Bus engines on one machine (test/shared/machine.ts: memfs volume, virtual clock, process table,
// manual watcher; no generator, the tests say every step), over the real fs bus store. memfs stamps
// mtimes with Date, and an mtime is the heartbeat and the arrival: Date is faked and kept on the
// virtual clock, timer by timer, from before the machine is built.
import type { Volume } from "memfs";
import { vi } from "vitest";
import { createFsBusStore } from "../../../../src/adapters/fs/bus/fs-bus-store.js";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import type { ManualWatcher } from "../../../../src/adapters/memory/manual-watcher.js";
import { memoryFsUid } from "../../../../src/adapters/memory/memory-fs.js";
import { createMemoryRealPaths, exactNames } from "../../../../src/adapters/memory/memory-real-paths.js";
import type { ProcessTable, SpawnOptions } from "../../../../src/adapters/memory/process-table.js";
import { createSeededEntropy } from "../../../../src/adapters/memory/seeded-entropy.js";
import type { VirtualClock } from "../../../../src/adapters/memory/virtual-clock.js";
import type { SessionRecord } from "../../../../src/domain/bus/bus-files.js";
import { type BusEngine, createBusEngine } from "../../../../src/domain/bus/engine/index.js";
import type { BusHost, BusWarning, MailNotice } from "../../../../src/ports/bus/bus-host.js";
import type { RepoPlace } from "../../../../src/ports/bus/repo-resolver.js";
import type { Clock, TimerHandle } from "../../../../src/ports/shared/clock.js";
import { createMachine } from "../../../shared/machine.js";

export const busRoot = "/agent/session-bus/repo-key";
export const repo = "/repo";
export const startMs = 1_700_000_000_000;

export type Name = "alice" | "bob" | "carol" | "dave";

/** Pi's ids are UUIDv7: sessions started together share their first characters. */
export const idOf: Record<Name, string> = {
  alice: "01a232e9-7f64-7000-8000-00000000a11c",
  bob: "01a232e9-809c-7000-8000-000000000b0b",
  carol: "01a232e9-81aa-7000-8000-00000000ca01",
  dave: "01a232e9-82bb-7000-8000-00000000da7e",
};

export interface RecordingBusHost extends BusHost {
  raised: MailNotice[];
  warnings: BusWarning[];
}

export interface BusSession {
  name: Name;
  id: string;
  pid: number;
  engine: BusEngine;
  host: RecordingBusHost;
  /** Timers of this engine neither fired nor cancelled. */
  liveTimers(): number;
}

export interface StartOptions {
  /** Pi's session name (default none: the label derives from the cwd). */
  sessionName?: string;
  cwd?: string;
  spawn?: SpawnOptions;
  /** Another name's session id: a second process of that session. */
  idOf?: Name;
  reason?: "startup" | "reload";
  /** Run as this already running pid (a reload in the same process). */
  pid?: number;
  /** This process's view of the file system (to interleave another session inside a call). */
  wrapFs?: (fs: FsLike) => FsLike;
}

export interface BusHarness {
  /** The hop limit every session reads (the mailbox's default until set). */
  setHopLimit(limit: number): void;
  vol: Volume;
  clock: VirtualClock;
  table: ProcessTable;
  watcher: ManualWatcher;
  start(name: Name, options?: StartOptions): BusSession;
  /** The session last started under `name`. */
  session(name: Name): BusSession;
  /** Moves virtual time and Date together, firing due timers at their own times. */
  advance(ms: number): void;
  shutdown(name: Name, reason?: "quit" | "reload" | "resume"): void;
  /** Alive but silent (blocked, or SIGSTOP with no probe to tell): its timers wait, in order. */
  hang(name: Name): void;
  /** The hung session goes on: what waited runs now. */
  resume(name: Name): void;
  /** kill -9: nothing of it runs any more, its files stay. */
  crash(name: Name): void;
  record(name: Name): SessionRecord | undefined;
  /** Names in claims/, as the store wrote them. */
  claimFiles(): string[];
  inboxFiles(name: Name): string[];
  /** Sets the mtime of `name`'s record `ageMs` in the past (a stopped heartbeat). */
  ageRecord(name: Name, ageMs: number): void;
}

/** Runs a session's timer callback now, later (while it hangs), or never (once it died). */
type Gate = (fn: () => void) => void;

function trackedClock(clock: VirtualClock, live: Set<TimerHandle>, gate: Gate): Clock {
  return {
    now: () => clock.now(),
    monotonic: () => clock.monotonic(),
    setTimer(ms, fn) {
      const handle: TimerHandle = {
        cancel: () => {
          live.delete(handle);
          inner.cancel();
        },
      };
      const inner = clock.setTimer(ms, () => {
        live.delete(handle);
        gate(fn);
      });
      live.add(handle);
      return handle;
    },
    defer: (fn) => clock.defer(() => gate(fn)),
  };
}

function recordingHost(): RecordingBusHost {
  const host: RecordingBusHost = {
    raised: [],
    warnings: [],
    raiseTurn: (notice) => void host.raised.push(notice),
    warn: (warning) => void host.warnings.push(warning),
  };
  return host;
}

export function createBusHarness(): BusHarness {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(startMs);
  const { fs, vol, clock, table, watcher } = createMachine({ startMs });
  const sessions = new Map<Name, BusSession>();
  let hopLimit = 5;
  const kills = new Map<Name, () => void>();
  const hangs = new Map<Name, (on: boolean) => void>();
  vol.mkdirSync("/agent", { recursive: true, mode: 0o700 });
  vol.mkdirSync(`${repo}/src/api`, { recursive: true, mode: 0o755 });
  vol.writeFileSync(`${repo}/src/api/routes.ts`, "");
  vol.writeFileSync(`${repo}/README.md`, "");
  vol.symlinkSync(`${repo}/src`, `${repo}/src-link`);
  const realPaths = createMemoryRealPaths(vol, exactNames);
  const list = (path: string): string[] => {
    try {
      return (vol.readdirSync(path) as unknown[]).map(String).sort();
    } catch {
      return [];
    }
  };

  const start = (name: Name, options: StartOptions = {}): BusSession => {
    const identity = options.pid === undefined ? table.spawn(options.spawn) : table.probeFor(options.pid).self();
    const live = new Set<TimerHandle>();
    let alive = true;
    let hung = false;
    const held: (() => void)[] = [];
    const gate: Gate = (fn) => {
      if (!alive) return;
      if (hung) held.push(fn);
      else fn();
    };
    const host = recordingHost();
    const clockOf = trackedClock(clock, live, gate);
    const cwd = options.cwd ?? repo;
    const place: RepoPlace = { key: "repo-key", common: `${repo}/.git`, root: repo, cwd };
    const engine = createBusEngine({
      store: createFsBusStore({
        fs: options.wrapFs?.(fs) ?? fs,
        root: busRoot,
        uid: memoryFsUid,
        entropy: createSeededEntropy(identity.pid + 1),
      }),
      place,
      clock: clockOf,
      entropy: createSeededEntropy(identity.pid),
      probe: table.probeFor(identity.pid),
      watcher: { watch: (dir, onHint) => watcher.watch(dir, (hint) => alive && onHint(hint)) },
      realPaths,
      hopLimit: () => hopLimit,
      host,
    });
    const id = idOf[options.idOf ?? name];
    const session: BusSession = { name, id, pid: identity.pid, engine, host, liveTimers: () => live.size };
    hangs.set(name, (on) => {
      hung = on;
      if (!on) for (const fn of held.splice(0)) gate(fn);
    });
    kills.set(name, () => {
      alive = false;
      for (const handle of [...live]) handle.cancel();
    });
    sessions.set(name, session);
    engine.sessionStarted({ id, name: options.sessionName }, options.reason ?? "startup");
    return session;
  };

  const harness: BusHarness = {
    setHopLimit(limit) {
      hopLimit = limit;
    },
    vol,
    clock,
    table,
    watcher,
    start,
    session(name) {
      const found = sessions.get(name);
      if (found === undefined) throw new Error(`${name} never started`);
      return found;
    },
    advance(ms) {
      const target = clock.now() + ms;
      for (let next = clock.nextTimerAt(); next !== undefined && next <= target; next = clock.nextTimerAt()) {
        vi.setSystemTime(next);
        clock.advance(next - clock.now());
      }
      vi.setSystemTime(target);
      clock.advance(target - clock.now());
      clock.runDeferred();
    },
    shutdown(name, reason = "quit") {
      const session = harness.session(name);
      session.engine.shutdown(reason);
      if (reason !== "reload") table.exit(session.pid);
    },
    hang(name) {
      hangs.get(name)?.(true);
    },
    resume(name) {
      hangs.get(name)?.(false);
    },
    crash(name) {
      table.crash(harness.session(name).pid);
      kills.get(name)?.();
    },
    record(name) {
      const path = `${busRoot}/sessions/${idOf[name]}.json`;
      if (!vol.existsSync(path)) return undefined;
      return JSON.parse(String(vol.readFileSync(path, "utf8"))) as SessionRecord;
    },
    claimFiles: () => list(`${busRoot}/claims`),
    inboxFiles: (name) => list(`${busRoot}/inbox/${idOf[name]}`),
    ageRecord(name, ageMs) {
      const seconds = (clock.now() - ageMs) / 1000;
      vol.utimesSync(`${busRoot}/sessions/${idOf[name]}.json`, seconds, seconds);
    },
  };
  return harness;
}

/** A `wrapFs` that runs `step` once, right after the first listing of `folder` closes: another
 * process's step landing between what a session read and what it does next. `ran()` tells whether
 * it came. */
export function afterFirstListing(
  folder: string,
  step: () => void,
): { wrapFs: (fs: FsLike) => FsLike; ran(): boolean } {
  let ran = false;
  const wrapFs = (fs: FsLike): FsLike => ({
    ...fs,
    opendirSync(path: string) {
      const dir = fs.opendirSync(path);
      if (path !== folder || ran) return dir;
      return {
        readSync: () => dir.readSync(),
        closeSync() {
          dir.closeSync();
          ran = true;
          step();
        },
      } as typeof dir;
    },
  });
  return { wrapFs, ran: () => ran };
}
