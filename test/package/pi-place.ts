// A real Pi process for the package test, offline and in a folder of its own: HOME, agent dir,
// XDG state and TMPDIR under one temp folder, an environment built from scratch, no model (none is
// needed to load extensions and run a command), and an empty network namespace where available.
import { mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { canUnshareNetwork, e2ePaths } from "../e2e/harness/pi-command.js";
import { onPath, run } from "./run.js";

export interface PiPlace {
  root: string;
  agentDir: string;
  /** XDG_STATE_HOME; the mail root is `<state>/pi-session-mail`. */
  state: string;
  env: Record<string, string>;
}

export type RpcRecord = Readonly<Record<string, unknown>>;

const piTimeoutMs = 20_000;

export function createPiPlace(root: string, extraEnv: Readonly<Record<string, string>> = {}): PiPlace {
  const dir = (name: string) => {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const home = dir("home");
  const agentDir = dir("agent");
  const state = dir("state");
  // npm and git are looked up where the test found them; Node 22 comes first.
  const path = [dirname(e2ePaths.nodeBin), dirname(onPath("npm")), dirname(onPath("git")), "/usr/bin", "/bin"];
  const env = {
    PATH: [...new Set(path)].join(":"),
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    XDG_STATE_HOME: state,
    TMPDIR: dir("tmp"),
    PI_SKIP_VERSION_CHECK: "1",
    PI_TELEMETRY: "0",
    ...extraEnv,
  };
  return { root, agentDir, state, env };
}

function command(args: readonly string[]): [string, string[]] {
  const argv = [e2ePaths.piCli, ...args];
  // `unshare` execs node in place, so the process group's leader is Pi itself.
  return canUnshareNetwork() ? ["unshare", ["-rn", e2ePaths.nodeBin, ...argv]] : [e2ePaths.nodeBin, argv];
}

/** `pi <args>` as a command line (`pi install …`); resolves with its stdout. */
export function piCli(place: PiPlace, args: readonly string[], timeoutMs = piTimeoutMs): Promise<string> {
  const [file, argv] = command(args);
  return run(file, argv, { cwd: place.root, env: place.env, timeoutMs });
}

/**
 * `pi --mode rpc <args>`: sends the commands (each with an `id`), ends stdin once each has its
 * response, and resolves with every stdout record once Pi has exited.
 */
export async function piRpc(
  place: PiPlace,
  args: readonly string[],
  commands: readonly { id: string; type: string; [key: string]: unknown }[],
): Promise<RpcRecord[]> {
  const records: RpcRecord[] = [];
  const waiting = new Set(commands.map((c) => c.id));
  const [file, argv] = command(["--mode", "rpc", "--no-session", ...args]);
  await run(file, argv, {
    cwd: place.root,
    env: place.env,
    timeoutMs: piTimeoutMs,
    onStart: (child) => {
      for (const c of commands) child.stdin?.write(`${JSON.stringify(c)}\n`);
    },
    onLine: (line, child) => {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        return;
      }
      if (typeof record !== "object" || record === null) return;
      records.push(record as RpcRecord);
      const { type, id } = record as RpcRecord;
      if (type === "response" && typeof id === "string") waiting.delete(id);
      if (waiting.size === 0) child.stdin?.end();
    },
  });
  if (waiting.size > 0) throw new Error(`pi exited before answering ${[...waiting].join(", ")}`);
  return records;
}
