// The `switchboard` program as a real process: built as the package lays it out (cli-build.ts), then run
// against a sandbox's mail root and agent dir. Every process is owned by the sandbox, which kills it by pid even when a test fails.
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { e2ePaths } from "../e2e/harness/pi-command.js";
import { forgetProcess, type Sandbox } from "../e2e/harness/sandbox.js";
import { buildCliPackage } from "./cli-build.js";

const built = new WeakMap<Sandbox, string>();

/** The program's bin, built once per sandbox into its folder (removed with it). */
export function cliBundle(sandbox: Sandbox): string {
  const known = built.get(sandbox);
  if (known !== undefined) return known;
  const bin = buildCliPackage(join(sandbox.root, "switchboard"));
  built.set(sandbox, bin);
  return bin;
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Written to stdin, which is then closed (closed at once when absent). */
  stdin?: string | Buffer;
  env?: Readonly<Record<string, string>>;
  /** Closes the reading end of its stdout at once, as `| head` does when it has read enough. */
  closeStdout?: boolean;
}

export interface CliProcess {
  readonly pid: number;
  /** What it wrote to stdout so far. */
  stdout(): string;
  /** What it wrote to stderr so far. */
  stderr(): string;
  readonly done: Promise<CliResult>;
  kill(signal: NodeJS.Signals): void;
}

/** The environment a person's shell would give it, in the sandbox: nothing else is inherited. */
export function cliEnv(sandbox: Sandbox, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return {
    PATH: `${dirname(e2ePaths.nodeBin)}:/usr/local/bin:/usr/bin:/bin`,
    HOME: sandbox.home,
    XDG_STATE_HOME: sandbox.state,
    PI_CODING_AGENT_DIR: sandbox.agentDir,
    TMPDIR: sandbox.tmp,
    ...extra,
  };
}

/** Starts `switchboard <args>`; the sandbox owns it. */
export function startCli(sandbox: Sandbox, args: readonly string[], options: CliOptions = {}): CliProcess {
  const child: ChildProcess = spawn(e2ePaths.nodeBin, [cliBundle(sandbox), ...args], {
    cwd: options.cwd ?? sandbox.home,
    env: cliEnv(sandbox, options.env),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error("switchboard did not start");
  let alive = true;
  const owned = {
    pid,
    isAlive: () => alive,
    async forceKill(waitMs: number) {
      child.kill("SIGKILL");
      await Promise.race([done, new Promise((resolve) => setTimeout(resolve, waitMs))]);
    },
  };
  let stdout = "";
  let stderr = "";
  if (options.closeStdout === true) child.stdout!.destroy();
  else
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on("close", (code, signal) => {
      alive = false;
      forgetProcess(owned);
      resolve({ code, signal, stdout, stderr });
    });
  });
  sandbox.own(owned);
  // The program may stop reading stdin before its end (a message over the limit) and exit: the rest
  // of what is written then meets a closed pipe, which is its answer, not the test's failure.
  child.stdin!.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
  });
  child.stdin!.end(options.stdin ?? "");
  return { pid, done, stdout: () => stdout, stderr: () => stderr, kill: (signal) => child.kill(signal) };
}

/** Runs `switchboard <args>` to its end. */
export function runCli(sandbox: Sandbox, args: readonly string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(sandbox, args, options).done;
}
