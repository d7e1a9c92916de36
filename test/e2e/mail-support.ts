// Shared by the mail e2e files: starting sessions that load this repo as a Pi package, reading the
// mail root the way another implementation would (an independent strict reader, not src's codec),
// bounded waits on files that fail when a session dies, and the RPC records the mail tests read.
import {
  copyFileSync,
  type FSWatcher,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  watch,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentText, isObject, type RpcRecord } from "./harness/rpc-records.js";
import { type ExitStatus, e2ePaths, type PiSession, type Sandbox, startPi } from "./harness/rpc-session.js";
import { within } from "./harness/within.js";

/** A Pi start with a cold transpile cache takes 20 s and more on a loaded 2-core machine. */
export const startTimeoutMs = 90_000;
export const runTimeoutMs = 20_000;

// ---------------------------------------------------------------- sessions

export interface SessionSpec {
  id: string;
  name?: string;
}

/**
 * Pi's jiti transpiles the extension into `$TMPDIR/jiti`, and every sandbox has its own TMPDIR, so
 * each file would pay a cold transpile (seconds per process under load). The cache file names hash
 * the source, so the files can be shared: they are copied from a seed folder into the sandbox
 * before the first start, and published back (each file by an atomic rename) once it is up.
 */
const jitiSeed = join(tmpdir(), `pi-switchboard-e2e-jiti-${process.getuid?.() ?? "user"}`);
const seedMaxAgeMs = 3 * 24 * 60 * 60 * 1000;

function copyCacheFiles(from: string, to: string, atomic: boolean): void {
  let names: string[];
  try {
    names = readdirSync(from).filter((n) => n.endsWith(".mjs") || n.endsWith(".cjs") || n.endsWith(".js"));
  } catch {
    return;
  }
  mkdirSync(to, { recursive: true });
  for (const name of names) {
    try {
      if (!atomic) {
        copyFileSync(join(from, name), join(to, name));
        continue;
      }
      const temp = join(to, `.${name}.${process.pid}.tmp`);
      copyFileSync(join(from, name), temp);
      renameSync(temp, join(to, name));
    } catch {
      // A cache file is an optimisation only.
    }
  }
}

function pruneSeed(): void {
  try {
    const now = Date.now();
    for (const name of readdirSync(jitiSeed)) {
      if (name === ".published") continue;
      const path = join(jitiSeed, name);
      if (now - statSync(path).mtimeMs > seedMaxAgeMs) rmSync(path, { force: true });
    }
  } catch {
    // No seed yet.
  }
}

function session(sandbox: Sandbox, spec: SessionSpec): PiSession {
  return startPi({
    sandbox,
    sessionId: spec.id,
    ...(spec.name === undefined ? {} : { name: spec.name }),
    extensions: [e2ePaths.repoRoot],
  });
}

/** Starts one mail session and waits until it answers `get_state`. */
export async function startMailSession(sandbox: Sandbox, spec: SessionSpec): Promise<PiSession> {
  const pi = session(sandbox, spec);
  await pi.request({ type: "get_state" }, startTimeoutMs);
  return pi;
}

function newestSourceMs(): number {
  const sources = [e2ePaths.scriptedModel, join(e2ePaths.repoRoot, "package.json")];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith(".ts")) sources.push(join(dir, entry.name));
    }
  };
  walk(join(e2ePaths.repoRoot, "src"));
  return Math.max(...sources.map((path) => statSync(path).mtimeMs));
}

/** The seed was published after the last change to any source the extension loads. */
function seedIsWarm(): boolean {
  try {
    return statSync(join(jitiSeed, ".published")).mtimeMs > newestSourceMs();
  } catch {
    return false;
  }
}

/**
 * With a warm transpile cache all sessions start together; otherwise the first starts alone
 * (filling the cache, which is then published to the seed) and the others together after it.
 */
export async function startMailSessions(sandbox: Sandbox, specs: readonly SessionSpec[]): Promise<PiSession[]> {
  const [first, ...rest] = specs;
  if (first === undefined) return [];
  pruneSeed();
  const warm = seedIsWarm();
  copyCacheFiles(jitiSeed, join(sandbox.tmp, "jiti"), false);
  if (warm) return Promise.all(specs.map((spec) => startMailSession(sandbox, spec)));
  const started = [await startMailSession(sandbox, first)];
  copyCacheFiles(join(sandbox.tmp, "jiti"), jitiSeed, true);
  writeFileSync(join(jitiSeed, ".published"), `${new Date().toISOString()}\n`);
  started.push(...(await Promise.all(rest.map((spec) => startMailSession(sandbox, spec)))));
  return started;
}

// ---------------------------------------------------------------- the mail root on disk

export type Box = "new" | "cur" | "sent" | "tmp";

export interface Envelope {
  id: string;
  from: string;
  to: string;
  kind: "request" | "ask" | "message" | "reply";
  hops: number;
  in_reply_to: string[];
  status: "" | "done" | "stopped" | "failed";
  ts: string;
  body: string;
}

export interface MailFile {
  name: string;
  path: string;
  envelope: Envelope;
}

export interface RunningRecord {
  address: string;
  name?: string;
  cwd: string;
  pid: number;
  state: "idle" | "busy";
  waitingOn: string;
  updated: string;
  started?: string;
}

const kinds = new Set(["request", "ask", "message", "reply"]);
const statuses = new Set(["", "done", "stopped", "failed"]);
const envelopeKeys = ["body", "from", "hops", "id", "in_reply_to", "kind", "status", "to", "ts"];

/** Strict: exactly the nine fields of the spec, with their types; throws otherwise. */
export function parseEnvelope(text: string, path: string): Envelope {
  const raw: unknown = JSON.parse(text);
  const bad = (why: string) => new Error(`${path} is not a valid envelope: ${why}`);
  if (!isObject(raw)) throw bad("not an object");
  const keys = Object.keys(raw).sort();
  if (keys.join(",") !== envelopeKeys.join(",")) throw bad(`fields ${keys.join(",")}`);
  const { id, from, to, kind, hops, in_reply_to: inReplyTo, status, ts, body } = raw;
  if (typeof id !== "string" || typeof from !== "string" || typeof to !== "string") throw bad("id/from/to");
  if (typeof kind !== "string" || !kinds.has(kind)) throw bad(`kind ${String(kind)}`);
  if (typeof hops !== "number" || !Number.isInteger(hops) || hops < 0) throw bad(`hops ${String(hops)}`);
  if (!Array.isArray(inReplyTo) || !inReplyTo.every((x): x is string => typeof x === "string")) {
    throw bad("in_reply_to");
  }
  if (typeof status !== "string" || !statuses.has(status)) throw bad(`status ${String(status)}`);
  if (typeof ts !== "string" || Number.isNaN(Date.parse(ts)) || typeof body !== "string") throw bad("ts/body");
  return {
    id,
    from,
    to,
    kind: kind as Envelope["kind"],
    hops,
    in_reply_to: inReplyTo,
    status: status as Envelope["status"],
    ts,
    body,
  };
}

export const mailRoot = (sandbox: Sandbox) => join(sandbox.state, "pi-session-mail");
export const boxPath = (sandbox: Sandbox, address: string, box: Box) => join(mailRoot(sandbox), address, box);
export const runningPath = (sandbox: Sandbox, address: string) => join(mailRoot(sandbox), "running", `${address}.json`);

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** Every envelope in one box, by file name (send time). */
export function readBox(sandbox: Sandbox, address: string, box: Box): MailFile[] {
  const dir = boxPath(sandbox, address, box);
  return listNames(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => {
      const path = join(dir, name);
      return { name, path, envelope: parseEnvelope(readFileSync(path, "utf8"), path) };
    });
}

/** Every envelope in new/, cur/ and sent/ of every address folder. */
export function readAllMail(sandbox: Sandbox): MailFile[] {
  const addresses = listNames(mailRoot(sandbox)).filter((name) => name !== "running");
  return addresses.flatMap((address) =>
    (["new", "cur", "sent"] as const).flatMap((box) => readBox(sandbox, address, box)),
  );
}

export function readRunningRecord(sandbox: Sandbox, address: string): RunningRecord | undefined {
  let text: string;
  try {
    text = readFileSync(runningPath(sandbox, address), "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  const raw: unknown = JSON.parse(text);
  if (!isObject(raw)) throw new Error(`running record of ${address} is not an object`);
  const { name, cwd, pid, state, waitingOn, updated, started } = raw;
  if (raw.address !== address || typeof cwd !== "string" || typeof pid !== "number") {
    throw new Error(`running record of ${address} is malformed: ${text}`);
  }
  if ((state !== "idle" && state !== "busy") || typeof waitingOn !== "string" || typeof updated !== "string") {
    throw new Error(`running record of ${address} is malformed: ${text}`);
  }
  return {
    address,
    cwd,
    pid,
    state,
    waitingOn,
    updated,
    ...(typeof name === "string" ? { name } : {}),
    ...(typeof started === "string" ? { started } : {}),
  };
}

// ---------------------------------------------------------------- bounded waits on files

const pollMs = 25;

export interface FileWaitOptions {
  timeoutMs: number;
  what: string;
  /** Sessions that must keep running: the wait fails at once when one exits. */
  alive: readonly PiSession[];
  /** A folder to watch for a faster answer than the poll gives; polled regardless. */
  watchDir?: string;
}

/**
 * Resolves with the first defined value of `probe`, checked at once, on every change in
 * `watchDir` and every 25 ms (a bounded poll of a condition, not a sleep); rejects at the
 * deadline or when a session in `alive` exits.
 */
export function waitUntil<T>(probe: () => T | undefined, options: FileWaitOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let watcher: FSWatcher | undefined;
    const finish = (outcome: { value: T } | { error: Error }) => {
      if (done) return;
      done = true;
      clearInterval(poll);
      clearTimeout(deadline);
      watcher?.close();
      if ("value" in outcome) resolve(outcome.value);
      else reject(outcome.error);
    };
    const check = () => {
      if (done) return;
      try {
        const value = probe();
        if (value !== undefined) finish({ value });
      } catch (error) {
        finish({ error: error instanceof Error ? error : new Error(String(error)) });
      }
    };
    const poll = setInterval(check, pollMs);
    const deadline = setTimeout(
      () => finish({ error: new Error(`${options.what} not seen within ${options.timeoutMs} ms`) }),
      options.timeoutMs,
    );
    for (const pi of options.alive) {
      void pi.exited.then((status) => {
        const tail = pi.stderr.trimEnd().split("\n").slice(-8).join("\n  ");
        finish({
          error: new Error(
            `pi[${pi.sessionId}] exited (code ${status.code}, signal ${status.signal}) before ${options.what}; stderr:\n  ${tail}`,
          ),
        });
      });
    }
    if (options.watchDir !== undefined) {
      try {
        watcher = watch(options.watchDir, check);
        watcher.on("error", () => {});
      } catch {
        // The poll still runs.
      }
    }
    check();
  });
}

/** The first envelope in `box` of `address` that matches. */
export function waitForMail(
  sandbox: Sandbox,
  address: string,
  box: Box,
  match: (envelope: Envelope) => boolean,
  options: Omit<FileWaitOptions, "watchDir">,
): Promise<MailFile> {
  return waitUntil(() => readBox(sandbox, address, box).find((m) => match(m.envelope)), {
    ...options,
    watchDir: boxPath(sandbox, address, box),
  });
}

/** A reply in `box` of `address` naming `requestId` in its in_reply_to. */
export function waitForReply(
  sandbox: Sandbox,
  address: string,
  requestId: string,
  options: Omit<FileWaitOptions, "watchDir">,
  box: Box = "cur",
): Promise<MailFile> {
  return waitForMail(sandbox, address, box, (e) => e.kind === "reply" && e.in_reply_to.includes(requestId), options);
}

export function repliesTo(sandbox: Sandbox, address: string, requestId: string): MailFile[] {
  return [...readBox(sandbox, address, "new"), ...readBox(sandbox, address, "cur")].filter(
    (m) => m.envelope.kind === "reply" && m.envelope.in_reply_to.includes(requestId),
  );
}

// ---------------------------------------------------------------- RPC records of the mailbox

export interface Notice {
  message: string;
  level: string;
}

export function notice(record: RpcRecord): Notice | undefined {
  if (record.type !== "extension_ui_request" || record.method !== "notify") return undefined;
  return {
    message: typeof record.message === "string" ? record.message : "",
    level: typeof record.notifyType === "string" ? record.notifyType : "",
  };
}

export function notices(records: readonly RpcRecord[]): Notice[] {
  return records.map(notice).filter((n) => n !== undefined);
}

export interface MailMessage {
  content: string;
  mailId: string;
  kind: string;
}

/** A `message_end` of the session-mail custom message type. */
export function mailMessageEnd(record: RpcRecord): MailMessage | undefined {
  if (record.type !== "message_end" || !isObject(record.message)) return undefined;
  const { role, customType, content, details } = record.message;
  if (role !== "custom" || customType !== "session-mail") return undefined;
  const d = isObject(details) ? details : {};
  return {
    content: contentText(content),
    mailId: typeof d.mailId === "string" ? d.mailId : "",
    kind: typeof d.kind === "string" ? d.kind : "",
  };
}

export function mailMessages(records: readonly RpcRecord[]): MailMessage[] {
  return records.map(mailMessageEnd).filter((m) => m !== undefined);
}

/** The `details` of a `tool_execution_end` result. */
export function toolDetails(record: RpcRecord): Readonly<Record<string, unknown>> {
  const result = isObject(record.result) ? record.result : {};
  return isObject(result.details) ? result.details : {};
}

export const count = (records: readonly RpcRecord[], type: string) => records.filter((r) => r.type === type).length;

// To a session that is not running, the notice goes on to say the request waits in its inbox.
const sentNotice = /^Sent (\S+) to ([^\s.]+(?:\.[^\s.]+)*)(?:\. That session is not running: .*)?$/;

/**
 * Types `/mailbox <to> <text>` into `from` as an RPC prompt; resolves with the request id from the
 * "Sent <id> to <address>" notice, after checking the notice names `address`.
 */
export async function mailboxRequest(from: PiSession, to: string, text: string, address: string): Promise<string> {
  const since = from.mark();
  const response = await from.request({ type: "prompt", message: `/mailbox ${to} ${text}` });
  if (!response.success) throw new Error(`/mailbox prompt rejected: ${response.error ?? ""}`);
  const record = await from.waitFor((r) => notice(r) !== undefined, runTimeoutMs, {
    since,
    what: `the notice after /mailbox ${to}`,
  });
  const shown = notice(record)?.message ?? "";
  const match = sentNotice.exec(shown);
  if (match === null || match[2] !== address) throw new Error(`expected "Sent <id> to ${address}", got "${shown}"`);
  return match[1] ?? "";
}

/** The exit status, or a rejection when the process has not exited within `timeoutMs`. */
export async function exitWithin(pi: PiSession, timeoutMs: number): Promise<ExitStatus> {
  if (!(await within(pi.exited, timeoutMs))) throw new Error(`pi[${pi.sessionId}] did not exit within ${timeoutMs} ms`);
  return pi.exited;
}

/** Median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[mid] ?? Number.NaN) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * `rounds` idle requests from `from` to `to`, each timed from the RPC prompt to the reply file in
 * `from`'s cur/; both sessions must be idle. Returns the times in ms.
 */
export async function idleRoundTrips(
  sandbox: Sandbox,
  from: PiSession,
  to: PiSession,
  toName: string,
  rounds: number,
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const since = to.mark();
    const started = performance.now();
    const id = await mailboxRequest(from, toName, `round trip ${i}`, to.sessionId);
    const reply = await waitForReply(sandbox, from.sessionId, id, {
      timeoutMs: runTimeoutMs,
      what: `reply to round trip ${i}`,
      alive: [from, to],
    });
    times.push(performance.now() - started);
    if (reply.envelope.status !== "done" || reply.envelope.body !== `echo: round trip ${i}`) {
      throw new Error(`round trip ${i}: unexpected reply ${JSON.stringify(reply.envelope)}`);
    }
    // The next round starts from an idle recipient.
    await to.waitFor((r) => r.type === "agent_settled", runTimeoutMs, { since, what: `settle after round trip ${i}` });
  }
  return times;
}

/** Per-file summary line for the measured round trips. */
export function describeRoundTrips(label: string, times: readonly number[]): string {
  const ms = times.map((t) => t.toFixed(1)).join(", ");
  return `[e2e ${label}] idle request -> reply file in sender's cur/: median ${median(times).toFixed(1)} ms over ${times.length} (${ms} ms)`;
}

/** Types `/mailbox <args>` into `pi` and returns the notice it shows. */
export async function mailbox(pi: PiSession, args: string): Promise<{ message: string; level: string }> {
  const since = pi.mark();
  const response = await pi.request({ type: "prompt", message: `/mailbox ${args}` });
  if (!response.success) throw new Error(`/mailbox ${args} rejected: ${response.error ?? ""}`);
  const record = await pi.waitFor((r: RpcRecord) => notice(r) !== undefined, runTimeoutMs, {
    since,
    what: `the notice after /mailbox ${args}`,
  });
  return notice(record)!;
}
