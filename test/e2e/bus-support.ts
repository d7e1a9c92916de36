// Shared by the bus e2e files: sessions started in folders of one git repository (the mail files'
// transpile-cache seeding reused through startMailSessions), the `session` tool called through the
// scripted model, the bus folder read the way another implementation would (an independent strict
// reader of its names and JSON, not src's codecs), and the RPC records the bus tests assert on.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, isObject, type RpcRecord } from "./harness/rpc-records.js";
import { e2ePaths, type PiSession, type Sandbox, startPi } from "./harness/rpc-session.js";
import { notices, runTimeoutMs, startMailSessions, startTimeoutMs, toolDetails } from "./mail-support.js";

export { runTimeoutMs, startTimeoutMs };

// ---------------------------------------------------------------- repositories and sessions

const gitEnv = {
  PATH: "/usr/local/bin:/usr/bin:/bin",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "e2e",
  GIT_AUTHOR_EMAIL: "e2e@example.invalid",
  GIT_COMMITTER_NAME: "e2e",
  GIT_COMMITTER_EMAIL: "e2e@example.invalid",
};

function git(cwd: string, args: readonly string[]): string {
  return execFileSync("git", ["-C", cwd, ...args], { env: gitEnv, encoding: "utf8", timeout: 15_000 });
}

/** A folder under `<sandbox>/cwd/`, nested (`shop/lib`) or not; made if missing. */
function folderPath(sandbox: Sandbox, folder: string): string {
  const path = join(sandbox.root, "cwd", ...folder.split("/"));
  mkdirSync(path, { recursive: true });
  return path;
}

/** `git init` with one empty commit (a worktree needs a HEAD), in `<sandbox>/cwd/<folder>`. */
export function gitRepository(sandbox: Sandbox, folder: string): string {
  const path = folderPath(sandbox, folder);
  git(path, ["init", "-q"]);
  git(path, ["commit", "-q", "--allow-empty", "-m", "e2e: first commit"]);
  return path;
}

/** `git worktree add` of `repoFolder`'s repository at `<sandbox>/cwd/<worktreeFolder>`. */
export function gitWorktree(sandbox: Sandbox, repoFolder: string, worktreeFolder: string): string {
  const path = join(sandbox.root, "cwd", worktreeFolder);
  git(folderPath(sandbox, repoFolder), ["worktree", "add", "-q", "--detach", path]);
  return path;
}

export interface BusSessionSpec {
  id: string;
  /** The folder under `<sandbox>/cwd/` the session works in, nested or not (`shop`, `shop/lib`). */
  folder: string;
  name?: string;
  env?: Readonly<Record<string, string>>;
  /** Extensions loaded after this package (`-e` each). */
  extensions?: readonly string[];
}

/**
 * The harness starts a session in `<sandbox>/cwd/<id>`: that name is made a symbolic link to the
 * spec's folder, so Pi works in the real folder (its cwd is the link's target, as the bus's own
 * rule for a label, the real basename, expects) and the mail files' start-up is reused unchanged.
 */
function linkSessionFolder(sandbox: Sandbox, spec: BusSessionSpec): void {
  const target = folderPath(sandbox, spec.folder);
  const link = join(sandbox.root, "cwd", spec.id);
  try {
    if (lstatSync(link).isSymbolicLink()) return;
    throw new Error(`${link} exists and is not a link`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  symlinkSync(target, link);
}

/**
 * Starts every spec, each answering `get_state` before this resolves. The first (which must take
 * the default environment) goes through `startMailSessions`, which seeds the sandbox's transpile
 * cache; the others start together after it with their own environment.
 */
export async function startBusSessions(sandbox: Sandbox, specs: readonly BusSessionSpec[]): Promise<PiSession[]> {
  const [first, ...rest] = specs;
  if (first === undefined) return [];
  if (first.env !== undefined || first.extensions !== undefined) {
    throw new Error("the first bus session starts with the default environment and extensions");
  }
  for (const spec of specs) linkSessionFolder(sandbox, spec);
  const [seeded] = await startMailSessions(sandbox, [{ id: first.id, ...(first.name ? { name: first.name } : {}) }]);
  if (seeded === undefined) throw new Error("startMailSessions started nothing");
  const others = rest.map((spec) =>
    startPi({
      sandbox,
      sessionId: spec.id,
      cwdFolder: spec.id,
      extensions: [e2ePaths.repoRoot, ...(spec.extensions ?? [])],
      ...(spec.name === undefined ? {} : { name: spec.name }),
      ...(spec.env === undefined ? {} : { env: spec.env }),
    }),
  );
  await Promise.all(others.map((pi) => pi.request({ type: "get_state" }, startTimeoutMs)));
  return [seeded, ...others];
}

/** The end of a session id as the bus suffixes a derived label with it (at least 4 hex digits). */
export const idEnd = (id: string, digits = 4) => id.replace(/[^0-9a-f]/g, "").slice(-digits);

// ---------------------------------------------------------------- the session tool

export interface ToolOutcome {
  text: string;
  isError: boolean;
  details: Readonly<Record<string, unknown>>;
  /** Every record of the run that made the call, its `agent_settled` last. */
  records: readonly RpcRecord[];
  /** The next-turn notices the call's prompt carried (see `callSession`). */
  notices: BusNotice[];
}

function toolOutcome(records: readonly RpcRecord[], tool: string, notices: BusNotice[]): ToolOutcome | undefined {
  const ends = records.filter((r) => r.type === "tool_execution_end");
  if (ends.length === 0) return undefined;
  const [end, ...more] = ends;
  if (end === undefined || more.length > 0 || end.toolName !== tool) {
    throw new Error(`expected one ${tool} tool end, got ${JSON.stringify(ends.map((e) => e.toolName))}`);
  }
  const result = isObject(end.result) ? end.result : {};
  return {
    text: contentText(result.content),
    isError: end.isError === true,
    details: toolDetails(end),
    records,
    notices,
  };
}

/**
 * One `session` call through the scripted model (`CALL_TOOL session {json}`), from the prompt to
 * its run's settle; the run must carry exactly one tool end, of `tool` (default `session`). A
 * listening session's prompt may carry a next-turn notice after it, which the scripted model
 * answers instead of the call (it reads the last message): the notice is announced once, so the
 * call is prompted once more, and the notices are returned for a test that cares.
 */
export async function callSession(pi: PiSession, args: object, tool = "session"): Promise<ToolOutcome> {
  const line = `CALL_TOOL ${tool} ${JSON.stringify(args)}`;
  const first = await pi.prompt(line, runTimeoutMs);
  const seen = busNotices(first.records);
  const outcome = toolOutcome(first.records, tool, seen);
  if (outcome !== undefined) return outcome;
  if (seen.length === 0) throw new Error(`${line}: the run called no tool and carried no bus notice`);
  const again = await pi.prompt(line, runTimeoutMs);
  const retried = toolOutcome(again.records, tool, seen);
  if (retried === undefined) throw new Error(`${line}: no tool call after the notice was answered`);
  return retried;
}

/** A call that must succeed: its text. */
export async function sessionOk(pi: PiSession, args: object): Promise<string> {
  const outcome = await callSession(pi, args);
  if (outcome.isError) throw new Error(`session ${JSON.stringify(args)} failed: ${outcome.text}`);
  return outcome.text;
}

/** A call that must be refused: its text. */
export async function sessionRefused(pi: PiSession, args: object): Promise<string> {
  const outcome = await callSession(pi, args);
  if (!outcome.isError) throw new Error(`session ${JSON.stringify(args)} succeeded: ${outcome.text}`);
  return outcome.text;
}

export interface PiState {
  sessionId: string;
  sessionName: string | undefined;
  sessionFile: string | undefined;
}

/** The session fields of RPC `get_state`. */
export async function piState(pi: PiSession): Promise<PiState> {
  const state = await pi.request({ type: "get_state" });
  const data = isObject(state.data) ? state.data : {};
  if (typeof data.sessionId !== "string") throw new Error("get_state named no sessionId");
  return {
    sessionId: data.sessionId,
    sessionName: typeof data.sessionName === "string" ? data.sessionName : undefined,
    sessionFile: typeof data.sessionFile === "string" ? data.sessionFile : undefined,
  };
}

export const sessionName = async (pi: PiSession) => (await piState(pi)).sessionName;

// ---------------------------------------------------------------- RPC records of the bus

export interface BusNotice {
  content: string;
  delivery: string;
  ids: string[];
  headline: string;
}

/** A `message_end` of the bus's custom message type (a wake or next-turn notice). */
function busNotice(record: RpcRecord): BusNotice | undefined {
  if (record.type !== "message_end" || !isObject(record.message)) return undefined;
  const { role, customType, content, details } = record.message;
  if (role !== "custom" || customType !== "session-bus") return undefined;
  const d = isObject(details) ? details : {};
  return {
    content: contentText(content),
    delivery: typeof d.delivery === "string" ? d.delivery : "",
    ids: Array.isArray(d.ids) ? d.ids.filter((id): id is string => typeof id === "string") : [],
    headline: typeof d.headline === "string" ? d.headline : "",
  };
}

export const busNotices = (records: readonly RpcRecord[]) => records.map(busNotice).filter((n) => n !== undefined);

/** Sends `/sessions[ args]` as a prompt; resolves with the notifications it raised. */
export async function sessionsCommand(pi: PiSession, args = ""): Promise<{ message: string; level: string }[]> {
  const since = pi.mark();
  const response = await pi.request({ type: "prompt", message: args === "" ? "/sessions" : `/sessions ${args}` });
  if (!response.success) throw new Error(`/sessions rejected: ${response.error ?? ""}`);
  // The listing is the last notification the command raises; a warning about an argument precedes it.
  await pi.waitFor((r) => r.type === "extension_ui_request" && r.notifyType === "info", runTimeoutMs, {
    since,
    what: "the /sessions listing",
  });
  return notices(pi.events.slice(since));
}

export const countType = (records: readonly RpcRecord[], type: string) => records.filter((r) => r.type === type).length;

/** Resolves after `ms`: a bounded look for something that must NOT happen, never a wait for it. */
export const quietFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- the bus folder on disk

const busRoot = (sandbox: Sandbox) => join(sandbox.agentDir, "session-bus");

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((name) => !name.startsWith("."))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** The repository keys that have a bus folder. */
export const busKeys = (sandbox: Sandbox) => listNames(busRoot(sandbox));

/** The one bus folder of the sandbox (a test works on one repository). */
export function busFolder(sandbox: Sandbox): string {
  const keys = busKeys(sandbox);
  if (keys.length !== 1) throw new Error(`expected one bus folder, found ${JSON.stringify(keys)}`);
  return join(busRoot(sandbox), keys[0] as string);
}

export interface StoredRecord {
  id: string;
  label: string;
  pid: number;
  joinToken: string;
  cwd: string;
  root: string;
  armed: boolean;
  wake: boolean;
}

/** `sessions/<id>.json` of every joined session, checked field by field. */
export function readRecords(folder: string): StoredRecord[] {
  const dir = join(folder, "sessions");
  return listNames(dir).map((name) => {
    const raw: unknown = JSON.parse(readFileSync(join(dir, name), "utf8"));
    if (!isObject(raw)) throw new Error(`${name} is not an object`);
    const { id, label, pid, joinToken, cwd, root, armed, wake } = raw;
    if (typeof id !== "string" || name !== `${id}.json`) throw new Error(`${name}: id ${String(id)}`);
    if (typeof label !== "string" || typeof pid !== "number" || typeof joinToken !== "string") {
      throw new Error(`${name}: label/pid/joinToken`);
    }
    if (
      typeof cwd !== "string" ||
      typeof root !== "string" ||
      typeof armed !== "boolean" ||
      typeof wake !== "boolean"
    ) {
      throw new Error(`${name}: cwd/root/armed/wake`);
    }
    return { id, label, pid, joinToken, cwd, root, armed, wake };
  });
}

export const recordOf = (folder: string, id: string) => readRecords(folder).find((r) => r.id === id);

export interface StoredClaim {
  key: string;
  owner: string;
  joinToken: string;
}

/** `claims/<percent-encoded key>~<owner id>~<join token>`: every claim, from its name alone. */
export function readClaims(folder: string): StoredClaim[] {
  return listNames(join(folder, "claims")).map((name) => {
    const parts = name.split("~");
    if (parts.length !== 3) throw new Error(`claim file ${name} is not key~owner~token`);
    const [key, owner, joinToken] = parts as [string, string, string];
    return { key: decodeURIComponent(key), owner, joinToken };
  });
}

export const claimKeysOf = (folder: string, owner: string) =>
  readClaims(folder)
    .filter((c) => c.owner === owner)
    .map((c) => c.key)
    .sort();

export interface StoredMessage {
  file: string;
  id: string;
  from: string;
  fromLabel: string;
  to: string;
  kind: string;
  text: string;
  paths: string[];
  /** The sender's turn hop count (0 when the file has none). */
  hops: number;
}

export const inboxPath = (folder: string, id: string) => join(folder, "inbox", id);

/** `inbox/<id>/<ms>-<message id>.json`, in name order (send time). */
export function readInbox(folder: string, id: string): StoredMessage[] {
  const dir = inboxPath(folder, id);
  return listNames(dir).map((file) => {
    const raw: unknown = JSON.parse(readFileSync(join(dir, file), "utf8"));
    if (!isObject(raw)) throw new Error(`${file} is not an object`);
    const { id: messageId, from, fromLabel, to, kind, text, paths } = raw;
    if (typeof messageId !== "string" || !file.endsWith(`-${messageId}.json`)) throw new Error(`${file}: id`);
    if (typeof from !== "string" || typeof fromLabel !== "string" || typeof to !== "string") {
      throw new Error(`${file}: from/fromLabel/to`);
    }
    if (typeof kind !== "string" || typeof text !== "string" || !Array.isArray(paths)) {
      throw new Error(`${file}: kind/text/paths`);
    }
    const hops = typeof raw.hops === "number" ? raw.hops : 0;
    return { file, id: messageId, from, fromLabel, to, kind, text, paths: paths.map(String), hops };
  });
}

/** Writes a plain file where a folder is expected (a partial fan-out's failing recipient). */
export function replaceWithFile(path: string): void {
  rmSync(path, { recursive: true, force: true });
  writeFileSync(path, "not an inbox\n");
}

// ---------------------------------------------------------------- a reload over RPC

/** The notification the reload extension raises in the runtime a reload started. */
export const reloadedNotice = "bus-e2e: started after a reload";

/**
 * Pi 1.6 has no RPC command for `/reload` (a prompt "/reload" goes to the model), but an extension
 * command may call `ctx.reload()`, the same flow. This writes such an extension into the sandbox:
 * `/bus-e2e-reload` reloads, and the runtime it starts says so with a notification.
 */
export function writeReloadExtension(sandbox: Sandbox): string {
  const path = join(sandbox.root, "bus-e2e-reload.mjs");
  writeFileSync(
    path,
    `export default function busE2eReload(pi) {
  pi.registerCommand("bus-e2e-reload", {
    description: "e2e: reload the runtime as /reload does",
    handler: async (_args, ctx) => {
      await ctx.reload();
    },
  });
  pi.on("session_start", (event, ctx) => {
    if (event.reason === "reload") ctx.ui.notify(${JSON.stringify(reloadedNotice)}, "info");
  });
}
`,
  );
  return path;
}
