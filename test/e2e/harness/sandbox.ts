// One temp folder per e2e test file: HOME, XDG state, Pi agent dir, TMPDIR and one cwd per process.
// It owns the processes started in it, so `cleanup()` (and, as a last resort, the test process's
// `exit`) kills them by pid: a failing test never leaks a Pi process.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const defaultAgentSettings = { quietStartup: true, retry: { enabled: false } } as const;

/** What the sandbox needs to know of a process it owns. */
export interface OwnedProcess {
  readonly pid: number;
  /** True until the process has exited. */
  isAlive(): boolean;
  /** SIGKILL by pid, then wait (bounded) for the exit. */
  forceKill(waitMs: number): Promise<void>;
}

export interface Sandbox {
  readonly root: string;
  readonly home: string;
  /** XDG_STATE_HOME; the mail root is `<state>/pi-session-mail`. */
  readonly state: string;
  /** PI_CODING_AGENT_DIR, holding settings.json. */
  readonly agentDir: string;
  readonly tmp: string;
  /** Creates (if needed) and returns the working folder of one process. */
  cwdFor(folder: string): string;
  own(process: OwnedProcess): void;
  /** Kills every process started in the sandbox by pid, then removes the folder. */
  cleanup(): Promise<void>;
}

export interface SandboxOptions {
  /** Written to agent/settings.json; `defaultAgentSettings` when absent. */
  settings?: Readonly<Record<string, unknown>>;
}

const killWaitMs = 5_000;
const liveProcesses = new Set<OwnedProcess>();
let exitHandlerInstalled = false;

// `exit` handlers must be synchronous: only signals can be sent here.
function installExitHandler(): void {
  if (exitHandlerInstalled) return;
  exitHandlerInstalled = true;
  process.on("exit", () => {
    for (const owned of liveProcesses) {
      if (!owned.isAlive()) continue;
      try {
        process.kill(owned.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  });
}

export function createSandbox(options: SandboxOptions = {}): Sandbox {
  installExitHandler();
  const root = mkdtempSync(join(tmpdir(), "pi-e2e-"));
  const dir = (name: string) => {
    const path = join(root, name);
    mkdirSync(path, { recursive: true });
    return path;
  };
  const home = dir("home");
  const state = dir("state");
  const agentDir = dir("agent");
  const tmp = dir("tmp");
  writeFileSync(join(agentDir, "settings.json"), `${JSON.stringify(options.settings ?? defaultAgentSettings)}\n`);
  const owned: OwnedProcess[] = [];
  let cleaned = false;

  return {
    root,
    home,
    state,
    agentDir,
    tmp,
    cwdFor(folder) {
      if (folder === "" || folder.includes("/") || folder.startsWith(".")) throw new Error(`bad cwd folder ${folder}`);
      return dir(join("cwd", folder));
    },
    own(process) {
      if (cleaned) throw new Error("sandbox already cleaned up");
      owned.push(process);
      liveProcesses.add(process);
    },
    async cleanup() {
      cleaned = true;
      await Promise.all(owned.filter((p) => p.isAlive()).map((p) => p.forceKill(killWaitMs)));
      for (const p of owned) liveProcesses.delete(p);
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Called by a process when it exits, so the `exit` handler never signals a reused pid. */
export function forgetProcess(process: OwnedProcess): void {
  liveProcesses.delete(process);
}
