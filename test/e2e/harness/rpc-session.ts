// Starts real `pi --mode rpc` processes offline (scripted model, scrubbed env, empty network
// namespace when available) and talks strict JSONL to them. Every wait is bounded and raced
// against the process's exit, so a dead or stuck Pi fails the test with its stderr instead of hanging.
import { type ChildProcess, spawn } from "node:child_process";
import { createEventLog, type EventLog, type WaitOptions } from "./event-log.js";
import { createJsonlSplitter, type JsonlSplitter } from "./jsonl-splitter.js";
import { piCommand, type StartPiOptions } from "./pi-command.js";
import { createRequestTable, type RequestTable } from "./request-table.js";
import {
  isRpcRecord,
  isRpcResponse,
  isSettled,
  type RpcCommand,
  type RpcRecord,
  type RpcResponse,
} from "./rpc-records.js";
import { forgetProcess, type OwnedProcess } from "./sandbox.js";
import { within } from "./within.js";

export type { WaitOptions } from "./event-log.js";
export { canUnshareNetwork, e2ePaths, type StartPiOptions, unexpectedStderr } from "./pi-command.js";
export { createSandbox, defaultAgentSettings, type Sandbox, type SandboxOptions } from "./sandbox.js";

const requestTimeoutMsDefault = 20_000;
const closeTimeoutMsDefault = 5_000;
const termWaitMs = 3_000;
const killWaitMs = 5_000;
/** After `exit`, how long to wait for stdio to close (a grandchild may hold it open). */
const stdioCloseWaitMs = 1_000;
const stderrTailLines = 12;
const eventTailCount = 8;

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface PromptRun {
  response: RpcResponse;
  settled: RpcRecord;
  /** The events from the prompt up to and including its `agent_settled`. */
  records: readonly RpcRecord[];
}

export interface PiSession {
  readonly pid: number;
  readonly sessionId: string;
  readonly cwd: string;
  /** Every stdout record except the responses matched to a request, in arrival order. */
  readonly events: readonly RpcRecord[];
  /** Stdout lines that were not a JSON object with a string `type`. */
  readonly stdoutNonJson: readonly string[];
  readonly stderr: string;
  readonly exited: Promise<ExitStatus>;
  /** Undefined while the process runs. */
  readonly exitStatus: ExitStatus | undefined;
  /** The index the next event will get: pass it as `since` to wait only for later events. */
  mark(): number;
  /** Default deadline 20 s; rejects when the process exits first. */
  request(command: RpcCommand, timeoutMs?: number): Promise<RpcResponse>;
  waitFor(predicate: (record: RpcRecord) => boolean, timeoutMs: number, options?: WaitOptions): Promise<RpcRecord>;
  /** Sends `prompt` and waits for the `agent_settled` that follows it. */
  prompt(message: string, timeoutMs: number): Promise<PromptRun>;
  /** Stdin EOF, bounded wait (default 5 s), then SIGTERM, then SIGKILL, by pid. */
  close(timeoutMs?: number): Promise<ExitStatus>;
  kill(signal: NodeJS.Signals): void;
}

/** Spawns Pi in `<sandbox>/cwd/<cwdFolder ?? sessionId>`; the sandbox owns the process. */
export function startPi(options: StartPiOptions): PiSession {
  const cwd = options.sandbox.cwdFor(options.cwdFolder ?? options.sessionId);
  const { command, argv, env } = piCommand(options);
  const child = spawn(command, argv, { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  if (child.pid === undefined) {
    child.on("error", () => {});
    throw new Error(`could not spawn ${command} for Pi session ${options.sessionId}`);
  }
  return createPiSession(child, child.pid, options, cwd);
}

interface OutputHandlers {
  onRecord(record: RpcRecord): void;
  onNonJson(line: string): void;
  onStderr(text: string): void;
}

/** Reads stdout as strict JSONL and stderr as text; returns the splitter to flush at exit. */
function readOutput(child: ChildProcess, handlers: OutputHandlers): JsonlSplitter {
  const splitter = createJsonlSplitter((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      handlers.onNonJson(line);
      return;
    }
    if (isRpcRecord(parsed)) handlers.onRecord(parsed);
    else handlers.onNonJson(line);
  });
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (chunk: string) => splitter.push(chunk));
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => handlers.onStderr(chunk));
  // Writing after the process died raises EPIPE here; the exit handling reports it.
  child.stdin?.on("error", () => {});
  child.on("error", (error) => handlers.onStderr(`\n[harness] child process error: ${error.message}\n`));
  return splitter;
}

function watchExit(child: ChildProcess, finish: (status: ExitStatus) => void): void {
  child.on("exit", (code, signal) => {
    // `close` (all stdout read) is preferred; the timer bounds the wait if stdio stays open.
    setTimeout(() => finish({ code, signal }), stdioCloseWaitMs).unref();
  });
  child.on("close", (code, signal) => finish({ code, signal }));
}

function recentOutput(events: readonly RpcRecord[], stderr: string): string {
  const tail = stderr.trimEnd().split("\n").slice(-stderrTailLines).join("\n  ");
  const types = events.slice(-eventTailCount).map((e) => e.type);
  return `last events: [${types.join(", ")}]; last stderr lines:\n  ${tail || "(none)"}`;
}

async function promptAndSettle(
  requests: RequestTable,
  log: EventLog,
  message: string,
  timeoutMs: number,
  describe: (message: string) => string,
): Promise<PromptRun> {
  const since = log.events.length;
  const response = await requests.request({ type: "prompt", message }, timeoutMs);
  if (!response.success) throw new Error(describe(`prompt rejected: ${response.error ?? "(no error text)"}`));
  const what = `agent_settled after prompt ${JSON.stringify(message.slice(0, 60))}`;
  const settled = await log.waitFor(isSettled, timeoutMs, { since, what });
  return { response, settled, records: log.events.slice(since, log.events.indexOf(settled, since) + 1) };
}

/** After stdin EOF: a bounded wait, then SIGTERM, then SIGKILL, each with its own bound. */
async function escalate(
  exited: Promise<ExitStatus>,
  signal: (name: NodeJS.Signals) => void,
  timeoutMs: number,
  describe: (message: string) => string,
): Promise<ExitStatus> {
  if (await within(exited, timeoutMs)) return exited;
  signal("SIGTERM");
  if (await within(exited, termWaitMs)) return exited;
  signal("SIGKILL");
  if (await within(exited, killWaitMs)) return exited;
  throw new Error(describe("did not exit after stdin EOF, SIGTERM and SIGKILL"));
}

function signalPid(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Exited between the caller's check and the signal.
  }
}

function createPiSession(child: ChildProcess, pid: number, options: StartPiOptions, cwd: string): PiSession {
  const label = `pi[${options.sessionId} pid ${pid}]`;
  const stdoutNonJson: string[] = [];
  let stderr = "";
  let exitStatus: ExitStatus | undefined;
  let resolveExited: (status: ExitStatus) => void = () => {};
  const exited = new Promise<ExitStatus>((resolve) => {
    resolveExited = resolve;
  });

  const describe = (message: string) => `${label}: ${message}; ${recentOutput(log.events, stderr)}`;
  const log = createEventLog(describe);
  const requests = createRequestTable((line) => child.stdin?.write(line), describe);

  const splitter = readOutput(child, {
    onRecord: (record) => {
      if (!(isRpcResponse(record) && requests.answer(record))) log.push(record);
    },
    onNonJson: (line) => stdoutNonJson.push(line),
    onStderr: (text) => {
      stderr += text;
    },
  });

  const signal = (name: NodeJS.Signals) => {
    if (exitStatus === undefined) signalPid(pid, name);
  };

  const owned: OwnedProcess = {
    pid,
    isAlive: () => exitStatus === undefined,
    async forceKill(waitMs) {
      signal("SIGKILL");
      await within(exited, waitMs);
    },
  };
  options.sandbox.own(owned);

  const finish = (status: ExitStatus) => {
    if (exitStatus !== undefined) return;
    exitStatus = status;
    splitter.flush();
    forgetProcess(owned);
    const why = (what: string) => describe(`exited (code ${status.code}, signal ${status.signal}) before ${what}`);
    requests.end(why);
    log.end(why);
    resolveExited(status);
  };
  watchExit(child, finish);

  const close = async (timeoutMs = closeTimeoutMsDefault): Promise<ExitStatus> => {
    if (exitStatus !== undefined) return exitStatus;
    child.stdin?.end();
    return escalate(exited, signal, timeoutMs, describe);
  };

  return {
    pid,
    sessionId: options.sessionId,
    cwd,
    events: log.events,
    stdoutNonJson,
    get stderr() {
      return stderr;
    },
    exited,
    get exitStatus() {
      return exitStatus;
    },
    mark: () => log.events.length,
    request: (command, timeoutMs = requestTimeoutMsDefault) => requests.request(command, timeoutMs),
    waitFor: log.waitFor,
    prompt: (message, timeoutMs) => promptAndSettle(requests, log, message, timeoutMs, describe),
    close,
    kill: signal,
  };
}
