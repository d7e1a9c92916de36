// Engines on one machine (test/shared/machine.ts: memfs volume, virtual clock, process table, manual
// watcher; no generator, the tests say every step), each serving a small recording host: the engine's
// behaviour tests drive it only through its methods.
import type { Volume } from "memfs";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import type { ManualWatcher } from "../../../../src/adapters/memory/manual-watcher.js";
import { memoryFsUid } from "../../../../src/adapters/memory/memory-fs.js";
import type { ProcessTable, SpawnOptions } from "../../../../src/adapters/memory/process-table.js";
import { createSeededEntropy } from "../../../../src/adapters/memory/seeded-entropy.js";
import type { VirtualClock } from "../../../../src/adapters/memory/virtual-clock.js";
import type { Address } from "../../../../src/domain/mail/address.js";
import type { ConfigSource } from "../../../../src/domain/mail/config.js";
import {
  createMailboxEngine,
  type InboundListener,
  type MailboxEngine,
} from "../../../../src/domain/mail/engine/index.js";
import { decodeEnvelope, type Envelope, encodeEnvelope } from "../../../../src/domain/mail/envelope.js";
import type { Clock, TimerHandle } from "../../../../src/ports/shared/clock.js";
import { createMachine } from "../../../shared/machine.js";
import { createRecordingHost, type RecordingHost } from "./recording-host.js";

export const mailRoot = "/state/pi-session-mail";
export const configPath = "/agent/session-mail.json";
export const pollMs = 1000;
/** Before today: memfs stamps mtimes with the real clock, so the start-up prune never finds an old folder. */
export const startMs = 1_700_000_000_000;

export type Name = "alice" | "bob" | "carol" | "dave" | "erin";

export const addressOf: Record<Name, Address> = {
  alice: "aaaaaaaa-0000-4000-8000-000000000001" as Address,
  bob: "bbbbbbbb-0000-4000-8000-000000000002" as Address,
  carol: "cccccccc-0000-4000-8000-000000000003" as Address,
  dave: "dddddddd-0000-4000-8000-000000000004" as Address,
  erin: "eeeeeeee-0000-4000-8000-000000000005" as Address,
};

export interface Session {
  name: Name;
  address: Address;
  cwd: string;
  pid: number;
  engine: MailboxEngine;
  host: RecordingHost;
  /** Timers this engine scheduled that have neither fired nor been cancelled. */
  liveTimers(): number;
  /** The footer as the engine last set it. */
  footer(): string | undefined;
  warnings(): string[];
  /** Enters every injected mail that starts a turn and was not entered yet (message_end); returns the ids. */
  enterAll(): string[];
  /** runStarted, enterAll, runSettled done with `text`. */
  completeRun(text: string): void;
  /** This process dies without a shutdown (like Harness.crash, for a session whose name a later
   * start on the same address took over). */
  crash(): void;
}

export interface StartOptions {
  /** Registered before sessionStarted, as a listener of an extension that loads first. */
  listener?: InboundListener;
  /** Whether the engine watches new/ (default true). */
  watch?: boolean;
  /** Called inside host.notify, i.e. possibly inside sessionStarted's own stack. */
  onNotice?: (session: Session) => void;
  /** How its process starts (default: the host's pid namespace, a readable start token). */
  spawn?: SpawnOptions;
}

export interface Harness {
  vol: Volume;
  clock: VirtualClock;
  table: ProcessTable;
  watcher: ManualWatcher;
  /** The session currently running (or last run) under each name. */
  session(name: Name): Session;
  /** Spawns a process and an engine for `name` and calls sessionStarted; the deferred start-up work waits for tick(). */
  start(name: Name, options?: StartOptions): Session;
  /** start() then tick(). */
  launch(name: Name, options?: StartOptions): Session;
  /** Runs the callbacks deferred to a later event-loop turn. */
  tick(): void;
  /** Moves virtual time, firing due timers, then runs deferred callbacks. */
  advance(ms: number): void;
  /** A watcher hint on `name`'s new/. */
  hint(name: Name): number;
  /** engine.shutdown(), then the process exits. */
  shutdown(name: Name): void;
  /** The process dies without a shutdown: its record stays, its timers never fire again. */
  crash(name: Name): void;
  writeConfig(text: string): void;
  newDir(name: Name): string;
  /** File names in one box of `name`'s folder ([] when it is missing). */
  files(name: Name, box: "tmp" | "new" | "cur" | "sent"): string[];
  /** The envelopes in one box, decoded. */
  envelopes(name: Name, box: "new" | "cur" | "sent"): Envelope[];
  /** running/<address>.json parsed, or undefined when absent. */
  record(name: Name): Record<string, unknown> | undefined;
  exists(path: string): boolean;
  /** Writes an envelope by hand into `into`'s new/ (default: the inbox of its `to`) under `fileName`. */
  plant(fields: Partial<Envelope> & { from: Address; to: Address }, fileName?: string, into?: Name): Envelope;
}

/** The virtual clock as one process sees it: nothing of a crashed process runs any more; `live`
 * holds its timers that neither fired nor were cancelled; `onTurn` runs after each deferred turn. */
export function trackedClock(
  clock: VirtualClock,
  live: Set<TimerHandle>,
  alive: () => boolean,
  onTurn: () => void = () => {},
): Clock {
  const track = (make: (fn: () => void) => TimerHandle, fn: () => void): TimerHandle => {
    const handle: TimerHandle = {
      cancel: () => {
        live.delete(handle);
        inner.cancel();
      },
    };
    const inner = make(() => {
      live.delete(handle);
      if (alive()) fn();
    });
    live.add(handle);
    return handle;
  };
  return {
    now: () => clock.now(),
    monotonic: () => clock.monotonic(),
    setTimer: (ms, fn) => track((f) => clock.setTimer(ms, f), fn),
    defer: (fn) =>
      clock.defer(() => {
        if (!alive()) return;
        fn();
        onTurn();
      }),
  };
}

export function createHarness(): Harness {
  const { fs, vol, clock, table, watcher } = createMachine({ startMs });
  const sessions = new Map<Name, Session>();
  let planted = 0;
  const crashes = new Map<Name, () => void>();
  vol.mkdirSync("/agent", { recursive: true, mode: 0o700 });

  const readConfigFile = (): ConfigSource =>
    vol.existsSync(configPath)
      ? { kind: "text", text: String(vol.readFileSync(configPath, "utf8")) }
      : { kind: "missing" };

  const list = (path: string): string[] => {
    try {
      return (vol.readdirSync(path) as unknown[]).map(String).sort();
    } catch {
      return [];
    }
  };
  const folder = (name: Name, box: string) => `${mailRoot}/${addressOf[name]}/${box}`;

  const start = (name: Name, options: StartOptions = {}): Session => {
    const identity = table.spawn(options.spawn);
    const live = new Set<TimerHandle>();
    let alive = true;
    const host = createRecordingHost(() => options.onNotice?.(session));
    const engine = createMailboxEngine({
      store: createFsMailStore({ fs, root: mailRoot, uid: memoryFsUid }),
      probe: table.probeFor(identity.pid),
      clock: trackedClock(clock, live, () => alive),
      // A crashed process hears no more hints: its watch dies with it.
      watcher: { watch: (dir, onHint) => watcher.watch(dir, (name) => alive && onHint(name)) },
      entropy: createSeededEntropy(identity.pid),
      host,
      config: { path: configPath, read: readConfigFile },
      durable: true,
      pollIntervalMs: pollMs,
      watch: options.watch ?? true,
    });
    const entered = new Set<string>();
    const session: Session = {
      name,
      address: addressOf[name],
      cwd: `/work/${name}`,
      pid: identity.pid,
      engine,
      host,
      liveTimers: () => (alive ? live.size : 0),
      footer: () => host.footers.at(-1),
      warnings: () => host.notices.filter((n) => n.level === "warning").map((n) => n.text),
      enterAll() {
        const ids = host.injected
          .filter((i) => i.options.triggerTurn && !entered.has(i.mail.details.mailId))
          .map((i) => i.mail.details.mailId);
        for (const id of ids) {
          entered.add(id);
          host.shown.add(id);
          engine.messageEntered(id);
        }
        return ids;
      },
      completeRun(text) {
        engine.runStarted();
        session.enterAll();
        engine.runSettled({ kind: "done", text });
      },
      crash: () => {},
    };
    // The crash switch lives with the process, so a crashed engine's timers and deferred work stop.
    const crash = () => {
      alive = false;
      for (const handle of [...live]) handle.cancel();
    };
    session.crash = () => {
      table.crash(identity.pid);
      crash();
    };
    crashes.set(name, crash);
    sessions.set(name, session);
    if (options.listener !== undefined) engine.onInbound(options.listener);
    engine.sessionStarted({ address: addressOf[name], name, cwd: session.cwd });
    return session;
  };

  const harness: Harness = {
    vol,
    clock,
    table,
    watcher,
    session(name) {
      const found = sessions.get(name);
      if (found === undefined) throw new Error(`${name} never started`);
      return found;
    },
    start,
    launch(name, options) {
      const session = start(name, options);
      clock.runDeferred();
      return session;
    },
    tick: () => void clock.runDeferred(),
    advance(ms) {
      clock.advance(ms);
      clock.runDeferred();
    },
    hint: (name) => watcher.notify(folder(name, "new")),
    shutdown(name) {
      const session = harness.session(name);
      session.engine.shutdown();
      table.exit(session.pid);
    },
    crash(name) {
      table.crash(harness.session(name).pid);
      crashes.get(name)?.();
    },
    writeConfig: (text) => vol.writeFileSync(configPath, text),
    newDir: (name) => folder(name, "new"),
    files: (name, box) => list(folder(name, box)),
    envelopes(name, box) {
      return harness.files(name, box).map((file) => {
        const decoded = decodeEnvelope(String(vol.readFileSync(`${folder(name, box)}/${file}`, "utf8")));
        if (decoded.isErr()) throw new Error(`${file} is not an envelope: ${decoded.error.kind}`);
        return decoded.value;
      });
    },
    record(name) {
      const path = `${mailRoot}/running/${addressOf[name]}.json`;
      if (!vol.existsSync(path)) return undefined;
      return JSON.parse(String(vol.readFileSync(path, "utf8"))) as Record<string, unknown>;
    },
    exists: (path) => vol.existsSync(path),
    plant(fields, fileName, into) {
      planted++;
      const envelope: Envelope = {
        id: `planted-${planted}`,
        kind: "message",
        hops: 0,
        in_reply_to: [],
        status: "",
        ts: "2023-11-14T22:13:20.000Z",
        body: `planted mail ${planted}`,
        ...fields,
      };
      const dir = into === undefined ? `${mailRoot}/${fields.to}/new` : folder(into, "new");
      vol.mkdirSync(dir, { recursive: true, mode: 0o700 });
      vol.writeFileSync(
        `${dir}/${fileName ?? `00000000000000${planted}-${envelope.id}.json`}`,
        encodeEnvelope(envelope),
      );
      return envelope;
    },
  };
  return harness;
}

/** Whether a promise has settled, without waiting for it: "pending" after one turn of the event loop. */
export function peek<T>(promise: Promise<T>): Promise<T | "pending"> {
  return Promise.race([promise, new Promise<"pending">((resolve) => setImmediate(() => resolve("pending")))]);
}
