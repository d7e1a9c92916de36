// Interactive Pi in a private tmux server (its own socket, never a user's server): keys in with
// send-keys, the screen out with capture-pane, waits that poll the screen. Every process it starts
// (the tmux server, Pi in the pane) is ended by pid in close().
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { e2ePaths } from "./pi-command.js";
import type { Sandbox } from "./sandbox.js";

const pollMs = 50;
const exitWaitMs = 5_000;

export interface TmuxPane {
  /** The visible screen, trailing spaces and blank lines dropped. */
  screen(): string;
  /** Resolves with the screen once `match` holds on it; rejects with the screen at the deadline. */
  waitFor(match: (screen: string) => boolean, what: string, timeoutMs: number): Promise<string>;
  /** Literal text, typed as is. */
  type(text: string): void;
  /** tmux key names: Enter, Escape, C-o, … */
  keys(...names: string[]): void;
  close(): Promise<void>;
}

export interface TmuxPaneOptions {
  sandbox: Sandbox;
  sessionId: string;
  name: string;
  columns: number;
  rows: number;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function endByPid(pid: number): Promise<void> {
  if (!alive(pid)) return;
  process.kill(pid, "SIGTERM");
  const deadline = Date.now() + exitWaitMs;
  while (alive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, pollMs));
  if (alive(pid)) process.kill(pid, "SIGKILL");
}

const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`;

/** Starts Pi's TUI with the scripted model and this package, in a detached pane of the given size. */
export function startTuiPane(options: TmuxPaneOptions): TmuxPane {
  const { sandbox } = options;
  const socket = join(sandbox.root, "tmux.sock");
  const tmux = (...args: string[]) =>
    execFileSync("tmux", ["-S", socket, ...args], {
      encoding: "utf8",
      timeout: 10_000,
      env: { PATH: "/usr/bin:/bin" },
    });
  const env = [
    `PATH=${join(e2ePaths.nodeBin, "..")}:/usr/bin:/bin`,
    "TERM=xterm-256color",
    `HOME=${sandbox.home}`,
    `XDG_STATE_HOME=${sandbox.state}`,
    `PI_CODING_AGENT_DIR=${sandbox.agentDir}`,
    `TMPDIR=${sandbox.tmp}`,
    "PI_OFFLINE=1",
    "PI_SKIP_VERSION_CHECK=1",
    "PI_TELEMETRY=0",
  ];
  const pi = [e2ePaths.nodeBin, e2ePaths.piCli, "-ne", "-e", e2ePaths.scriptedModel, "-e", e2ePaths.repoRoot];
  pi.push("--provider", "scripted", "--model", "echo", "--session-id", options.sessionId, "--name", options.name);
  // `env` execs node in place: the pane's pid is Pi's.
  const command = ["env", "-i", ...env, ...pi].map(quote).join(" ");
  const cwd = sandbox.cwdFor(options.sessionId);
  tmux("new-session", "-d", "-s", "pi", "-x", String(options.columns), "-y", String(options.rows), "-c", cwd, command);
  const serverPid = Number(tmux("display-message", "-p", "-t", "pi", "#{pid}").trim());
  const piPid = Number(tmux("list-panes", "-t", "pi", "-F", "#{pane_pid}").trim());
  const screen = () =>
    tmux("capture-pane", "-p", "-t", "pi")
      .split("\n")
      .map((line) => line.trimEnd())
      .filter((line) => line !== "")
      .join("\n");
  return {
    screen,
    async waitFor(match, what, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const shown = screen();
        if (match(shown)) return shown;
        if (Date.now() > deadline) throw new Error(`${what} not on screen within ${timeoutMs} ms:\n${shown}`);
        await new Promise((resolve) => setTimeout(resolve, pollMs));
      }
    },
    type: (text) => void tmux("send-keys", "-t", "pi", "-l", text),
    keys: (...names) => void tmux("send-keys", "-t", "pi", ...names),
    async close() {
      await endByPid(piPid);
      await endByPid(serverPid);
    },
  };
}
