// Real child processes for the stress suites: spawned on this Node, read line by line, waited on
// with bounded predicates raced with their exit, and killed by pid (never by name).
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { dirname, join } from "node:path";

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Worker {
  readonly pid: number;
  /** Complete stdout lines so far, in order. */
  readonly lines: readonly string[];
  stderr(): string;
  /** Settles once the process exited and its stdout and stderr are fully read. */
  readonly closed: Promise<Exit>;
  hasClosed(): boolean;
  /** Resolves once `predicate` holds for the lines read so far; rejects when the process ends first
   * or `timeoutMs` passes. */
  waitFor(what: string, predicate: (lines: readonly string[]) => boolean, timeoutMs: number): Promise<void>;
  send(line: string): void;
  /** SIGKILL by pid (if still running), then wait until it is reaped and its pipes are drained. */
  kill(): Promise<Exit>;
}

const live = new Set<Worker>();
/** Bytes of stderr kept for failure messages. */
const stderrCharsMax = 8 * 1024;

/** A bundled worker script on this Node. */
export function spawnWorker(script: string, env: Record<string, string>): Worker {
  // The bundle's folder holds the compile cache: the hundredth start parses less than the first.
  return spawnProcess(process.execPath, [script], {
    NODE_COMPILE_CACHE: join(dirname(script), "compile-cache"),
    ...env,
  });
}

export function spawnProcess(command: string, args: readonly string[], env: Record<string, string>): Worker {
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ["pipe", "pipe", "pipe"],
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const pid = child.pid;
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let partial = "";
  let errors = "";
  let done = false;
  const wake = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
    wake();
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    errors = (errors + chunk).slice(-stderrCharsMax);
  });
  // stdin is closed by a killed child; a late write must not crash the test process.
  child.stdin.on("error", () => {});
  const closed = new Promise<Exit>((resolve) => {
    child.on("close", (code, signal) => {
      // A line cut by a kill is not a line the worker finished writing: drop it.
      done = true;
      live.delete(worker);
      resolve({ code, signal });
      wake();
    });
  });
  const worker: Worker = {
    pid,
    lines,
    stderr: () => errors,
    closed,
    hasClosed: () => done,
    waitFor(what, predicate, timeoutMs) {
      return new Promise((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined;
        const finish = (failure: string | undefined) => {
          waiters.delete(check);
          clearTimeout(timer);
          if (failure === undefined) resolve();
          else
            reject(
              new Error(
                `${failure} (pid ${pid}, last lines ${JSON.stringify(lines.slice(-5))}, stderr ${JSON.stringify(errors.slice(-2000))})`,
              ),
            );
        };
        const check = () => {
          if (predicate(lines)) finish(undefined);
          else if (done) finish(`worker ended before: ${what}`);
        };
        timer = setTimeout(() => finish(`timed out after ${timeoutMs} ms waiting for: ${what}`), timeoutMs);
        waiters.add(check);
        check();
      });
    },
    send(line) {
      if (!done) child.stdin.write(`${line}\n`);
    },
    async kill() {
      if (!done) {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // Already gone (ESRCH): closed settles on its own.
        }
      }
      return closed;
    },
  };
  live.add(worker);
  return worker;
}

/** Kills every worker still running, each by its own pid, and waits until all are reaped. */
export async function killAllWorkers(): Promise<void> {
  await Promise.all([...live].map((worker) => worker.kill()));
}

/** Polls `predicate` (a check of files, not of a worker) until it holds, at most `timeoutMs`. */
export async function waitUntil(what: string, predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
