// One throw-away world on the real filesystem: a mail root in a mkdtemp folder, a trap folder beside
// it that nothing may read or change, and a mailbox engine wired like production (node fs, /proc,
// node:crypto, session-mail.json) serving a host that records what it was asked to show.
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { createManualWatcher, type ManualWatcher } from "../../src/adapters/memory/manual-watcher.js";
import { createVirtualClock, type VirtualClock } from "../../src/adapters/memory/virtual-clock.js";
import { createConfigFile } from "../../src/adapters/node/config-file.js";
import { cryptoEntropy } from "../../src/adapters/node/crypto-entropy.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { createProcessProbe } from "../../src/adapters/node/proc-probe.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import type { Address } from "../../src/domain/mail/address.js";
import { createMailboxEngine, type MailboxEngine } from "../../src/domain/mail/engine/index.js";
import { pollIntervalMs } from "../../src/domain/mail/limits.js";
import type { AgentHost, InjectedMail, InjectOptions, NoticeLevel } from "../../src/ports/mail/agent-host.js";

/** Text that only files the engine must never read as mail contain: it must never reach the model. */
export const neverMarker = "NEVER-READ-MARKER-7c1d";
export const selfAddress = "5e1f0000-0000-4000-8000-00000000000a" as Address;

export interface World {
  base: string;
  root: string;
  /** Outside the mail root: never read, moved or changed. */
  trap: string;
  /** Inside the mail root but in no mailbox: symlink targets that must stay untouched too. */
  inside: string;
  agentDir: string;
  /** Beside the root, on the same filesystem: entries are built here, then renamed into new/. */
  staging: string;
  self: Address;
  selfDir: string;
  newDir: string;
  curDir: string;
  tmpDir: string;
  sentDir: string;
  runningDir: string;
  /** Unblocks any FIFO a buggy scan would block on, from the first moment a session could open one. */
  watchdog: Watchdog;
}

/** After how long the watchdog opens the world's FIFOs: well past the time bound any scan must keep. */
export const watchdogAfterS = 4;

export function createWorld(): World {
  const base = fs.mkdtempSync(join(tmpdir(), "hostile-"));
  const root = join(base, "state", "pi-session-mail");
  const selfDir = join(root, selfAddress);
  const world: World = {
    base,
    root,
    trap: join(base, "trap"),
    inside: join(root, ".inside"),
    agentDir: join(base, "agent"),
    staging: join(base, "staging"),
    self: selfAddress,
    selfDir,
    newDir: join(selfDir, "new"),
    curDir: join(selfDir, "cur"),
    tmpDir: join(selfDir, "tmp"),
    sentDir: join(selfDir, "sent"),
    runningDir: join(root, "running"),
    watchdog: { stop: () => {} },
  };
  for (const dir of [world.trap, world.inside, world.agentDir, world.staging, world.runningDir]) mkdir(dir);
  for (const dir of [world.newDir, world.curDir, world.tmpDir, world.sentDir]) mkdir(dir);
  world.watchdog = fifoWatchdog(world, watchdogAfterS);
  return world;
}

export function removeWorld(world: World | undefined): void {
  if (world === undefined) return;
  world.watchdog.stop();
  fs.rmSync(world.base, { recursive: true, force: true });
}

export function mkdir(path: string): void {
  fs.mkdirSync(path, { recursive: true, mode: 0o700 });
}

/** FIFOs in one child process (node:fs has no mkfifo). */
export function makeFifos(paths: readonly string[]): void {
  if (paths.length > 0) execFileSync("mkfifo", ["-m", "600", "--", ...paths]);
}

/** A valid envelope's JSON, written by hand (encodeEnvelope would refuse the odd ones). */
export function envelopeJson(fields: Record<string, unknown>): string {
  return JSON.stringify({
    kind: "message",
    hops: 0,
    in_reply_to: [],
    status: "",
    ts: "2026-01-01T00:00:00.000Z",
    ...fields,
  });
}

/** The trap: an envelope, a folder holding one, a FIFO, a plain note. FIFOs to make go to `fifos`. */
export function buildTrap(world: World, from: Address, fifos: string[]): void {
  const mail = (id: string) => envelopeJson({ id, from, to: world.self, body: `${neverMarker} ${id}` });
  fs.writeFileSync(join(world.trap, "envelope.json"), mail("trap-file"), { mode: 0o600 });
  mkdir(join(world.trap, "dir"));
  fs.writeFileSync(join(world.trap, "dir", "000000000000001-trap-dir.json"), mail("trap-dir"), { mode: 0o600 });
  mkdir(join(world.trap, "inbox"));
  fs.writeFileSync(join(world.trap, "inbox", "000000000000001-trap-inbox.json"), mail("trap-inbox"), { mode: 0o600 });
  fs.writeFileSync(join(world.trap, "note.txt"), `${neverMarker}\n`, { mode: 0o644 });
  fifos.push(join(world.trap, "fifo"));
  fs.writeFileSync(join(world.inside, "envelope.json"), mail("inside-file"), { mode: 0o600 });
  mkdir(join(world.inside, "dir"));
  fs.writeFileSync(join(world.inside, "dir", "000000000000001-inside-dir.json"), mail("inside-dir"), { mode: 0o600 });
}

// ---- Sealing a folder: any read, move or change inside it shows afterwards. ----

const longAgoS = 946_684_800; // 2000-01-01: an atime older than the mtime, so any read moves it (relatime)

function walk(dir: string, rel = ""): string[] {
  const path = rel === "" ? dir : join(dir, rel);
  const out = [rel];
  const stats = fs.lstatSync(path);
  if (stats.isDirectory()) {
    for (const name of fs.readdirSync(path).sort()) out.push(...walk(dir, rel === "" ? name : join(rel, name)));
  }
  return out;
}

function typeOf(stats: fs.Stats): string {
  if (stats.isSymbolicLink()) return "link";
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "dir";
  if (stats.isFIFO()) return "fifo";
  return "other";
}

/** What an entry is: its type and, never following a link nor opening a FIFO, its content. */
export function describeEntry(path: string): string {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(path);
  } catch {
    return "absent";
  }
  const type = typeOf(stats);
  if (type === "link") return `link -> ${fs.readlinkSync(path)}`;
  if (type === "file") return `file ${createHash("sha256").update(fs.readFileSync(path)).digest("hex")}`;
  if (type === "dir") {
    return `dir {${fs
      .readdirSync(path)
      .sort()
      .map((name) => `${JSON.stringify(name)}: ${describeEntry(join(path, name))}`)
      .join(", ")}}`;
  }
  return type;
}

function statFacts(dir: string, paths: readonly string[]): string[] {
  return paths.map((rel) => {
    const path = rel === "" ? dir : join(dir, rel);
    try {
      const s = fs.lstatSync(path);
      return `${rel} ${typeOf(s)} ${s.mode.toString(8)} ${s.size} m${s.mtimeMs} a${s.atimeMs}`;
    } catch {
      return `${rel} absent`;
    }
  });
}

export interface Seal {
  dir: string;
  paths: string[];
  facts: string[];
  content: string;
}

/** Records a folder's listing and content, then sets every atime back so that a later read shows. */
export function seal(dir: string): Seal {
  const paths = walk(dir);
  const content = describeEntry(dir);
  for (const rel of paths) {
    const path = rel === "" ? dir : join(dir, rel);
    fs.lutimesSync(path, longAgoS, fs.lstatSync(path).mtime);
  }
  return { dir, paths, facts: statFacts(dir, paths), content };
}

/** Nothing in the folder was read (atimes), moved, added, removed or changed since `seal`. Call it
 * once per seal: it reads every file itself. */
export function expectSealed(s: Seal): void {
  expect(statFacts(s.dir, s.paths), `nothing in ${s.dir} was read or changed`).toEqual(s.facts);
  expect(describeEntry(s.dir), `nothing in ${s.dir} was moved, added or removed`).toBe(s.content);
}

// ---- The host and the engine ----

export interface RecordingHost extends AgentHost {
  readonly injected: Array<{ mail: InjectedMail; options: InjectOptions }>;
  readonly notices: Array<{ text: string; level: NoticeLevel }>;
}

export function createRecordingHost(): RecordingHost {
  const host: RecordingHost = {
    injected: [],
    notices: [],
    inject: (mail, options) => void host.injected.push({ mail, options: { ...options } }),
    notify: (text, level) => void host.notices.push({ text, level }),
    setStatus: () => {},
    hasShown: () => false,
  };
  return host;
}

export interface VirtualSession {
  engine: MailboxEngine;
  clock: VirtualClock;
  watcher: ManualWatcher;
  host: RecordingHost;
}

/** The production wiring with a virtual clock and a manual watcher, so the test says when scans run. */
export function startVirtualSession(world: World, host = createRecordingHost()): VirtualSession {
  const clock = createVirtualClock(Date.now());
  const watcher = createManualWatcher();
  const engine = createMailboxEngine({
    store: createFsMailStore({ fs: nodeFs, root: world.root, uid: currentUid() }),
    probe: createProcessProbe(),
    clock,
    watcher,
    entropy: cryptoEntropy,
    host,
    config: createConfigFile(world.agentDir),
    durable: true,
    pollIntervalMs,
    watch: true,
  });
  engine.sessionStarted({ address: world.self, name: "victim", cwd: world.base });
  clock.runDeferred();
  return { engine, clock, watcher, host };
}

// ---- Processes ----

/** This process's start token, as a running record of a live peer carries it. */
export const ownStartToken: string | undefined = createProcessProbe().self().started;
/** A process id that ran and was reaped: a record naming it is not running. */
export const deadPid: number = spawnSync("true").pid ?? 4_194_303;

export interface Watchdog {
  stop(): void;
}

/** If a scan ever blocks on a FIFO, this ends the block: every `afterS` seconds it opens each FIFO
 * in the mail root (wherever a claim has moved it), in staging and the trap's FIFO for writing and
 * closes it, so a blocked open or read returns and the scan's time bound fails the test instead of
 * hanging it. It lists no sealed folder (the trap, .inside): listing one would change its atime. */
function fifoWatchdog(world: World, afterS: number): Watchdog {
  const list = `{ find "$1" -path "$1/.inside" -prune -o -type p -print0; find "$2" -type p -print0; printf '%s\\0' "$3"; }`;
  // dd never creates nor truncates: a FIFO claimed away meanwhile leaves nothing behind.
  const unblock = `xargs -0 -r -n 1 -P 64 timeout 1 sh -c 'exec dd of="$0" conv=nocreat,notrunc count=0 status=none'`;
  const script = `while :; do sleep ${afterS}; ${list} 2>/dev/null | ${unblock}; done`;
  const args = [world.root, world.staging, join(world.trap, "fifo")];
  const child = spawn("sh", ["-c", script, "sh", ...args], { stdio: "ignore", detached: true });
  child.unref();
  return {
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    },
  };
}
