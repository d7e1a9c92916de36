// Bounded child processes for the package test: each runs in its own process group, is killed by
// that group's id when its time is up (npm and tsup start children of their own), and a failure
// says which command failed and ends with its stderr.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Called once the child is spawned (to write to its stdin). */
  onStart?: (child: ChildProcess) => void;
  /** Each stdout line as it arrives. With it, stdin is a pipe that stays open until the caller
   * ends it; without it, stdin is closed. */
  onLine?: (line: string, child: ChildProcess) => void;
}

const stderrTailChars = 4_000;
const live = new Set<number>();
let exitHookInstalled = false;

/** Kills every group still running: the last resort of a failing test. */
export function killLive(): void {
  for (const pid of live) killGroup(pid);
  live.clear();
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Resolves with stdout when the command exits 0 within its time; rejects otherwise. */
export function run(command: string, args: readonly string[], options: RunOptions): Promise<string> {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A test process that exits early (a crash, a timeout) still ends what it started.
    process.once("exit", killLive);
  }
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: true,
      stdio: [options.onLine === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const pid = child.pid;
    if (pid !== undefined) live.add(pid);
    let stdout = "";
    let stderr = "";
    let pending = "";
    let timedOut = false;
    child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      if (options.onLine === undefined) return;
      pending += chunk;
      const lines = pending.split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines) options.onLine(line, child);
    });
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    options.onStart?.(child);
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid !== undefined) killGroup(pid);
    }, options.timeoutMs);
    const fail = (why: string) =>
      reject(new Error(`${command} ${args.join(" ")} ${why}\n${stderr.slice(-stderrTailChars)}`));
    child.on("error", (error) => {
      clearTimeout(timer);
      fail(`could not start: ${error.message}`);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (pid !== undefined) live.delete(pid);
      if (timedOut) fail(`took more than ${options.timeoutMs} ms`);
      else if (code !== 0) fail(`exited with ${code ?? signal}`);
      else resolve(stdout);
    });
  });
}

/** The first `name` on PATH, like `which`. */
export function onPath(name: string): string {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const candidate = join(dir, name);
    if (dir !== "" && existsSync(candidate)) return candidate;
  }
  throw new Error(`${name} is not on PATH`);
}
