// How an offline Pi RPC process is launched: the Node 22 binary, the bundled CLI with the scripted
// model, a scrubbed environment, and `unshare -rn` (an empty network namespace) when the host allows it.
import { spawnSync } from "node:child_process";
import { realpathSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Sandbox } from "./sandbox.js";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
const nodeBin = realpathSync(join(repoRoot, "node_modules", ".bin", "node"));
const basePath = "/usr/local/bin:/usr/bin:/bin";

export const e2ePaths = {
  repoRoot,
  /** Node 22 (the system node may be too old for Pi). */
  nodeBin,
  piCli: join(repoRoot, "node_modules", "@earendil-works", "pi-coding-agent", "dist", "bundle", "cli.js"),
  scriptedModel: join(repoRoot, "test", "e2e", "fixtures", "scripted-model.ts"),
} as const;

export interface StartPiOptions {
  sandbox: Sandbox;
  sessionId: string;
  /** Passed as `--name`. */
  name?: string;
  /** Extension paths loaded after the scripted model (`-e` each). */
  extensions: readonly string[];
  /** Extra CLI arguments, appended last. */
  args?: readonly string[];
  /** Extra environment, set over the scrubbed one. */
  env?: Readonly<Record<string, string>>;
  /** Folder name under `<sandbox>/cwd/`; the session id when absent. */
  cwdFolder?: string;
}

export interface PiCommand {
  command: string;
  argv: string[];
  env: Record<string, string>;
}

let unshareWorks: boolean | undefined;

/** Whether `unshare -rn` (user + empty network namespace) works here; checked once. */
export function canUnshareNetwork(): boolean {
  if (unshareWorks === undefined) {
    const probe = spawnSync("unshare", ["-rn", "true"], { env: { PATH: basePath }, stdio: "ignore", timeout: 5_000 });
    unshareWorks = probe.status === 0;
  }
  return unshareWorks;
}

/** Built from scratch: nothing is inherited, so no provider key can change the model selection. */
function piEnv(sandbox: Sandbox, extra: Readonly<Record<string, string>>): Record<string, string> {
  return {
    PATH: `${dirname(nodeBin)}:${basePath}`,
    HOME: sandbox.home,
    XDG_STATE_HOME: sandbox.state,
    PI_CODING_AGENT_DIR: sandbox.agentDir,
    TMPDIR: sandbox.tmp,
    PI_OFFLINE: "1",
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    ...extra,
  };
}

export function piCommand(options: StartPiOptions): PiCommand {
  const args = [e2ePaths.piCli, "--mode", "rpc", "-ne", "-e", e2ePaths.scriptedModel];
  for (const extension of options.extensions) args.push("-e", extension);
  args.push("--provider", "scripted", "--model", "echo", "--session-id", options.sessionId);
  if (options.name !== undefined) args.push("--name", options.name);
  args.push(...(options.args ?? []));
  const env = piEnv(options.sandbox, options.env ?? {});
  // `unshare` execs node in place, so the spawned pid is Pi itself and signals reach it directly.
  if (canUnshareNetwork()) return { command: "unshare", argv: ["-rn", nodeBin, ...args], env };
  return { command: nodeBin, argv: args, env };
}

// Pi 1.6 prints this for a `--session-id` that has no session file yet (every fresh sandbox).
const knownStderrLines = [/^Warning: No project session found with id '[^']*'; creating a new session with that id\.$/];

/** Non-empty stderr lines other than Pi's known startup notices: expected to be empty. */
export function unexpectedStderr(stderr: string): string[] {
  return stderr.split("\n").filter((line) => line.trim() !== "" && !knownStderrLines.some((re) => re.test(line)));
}
