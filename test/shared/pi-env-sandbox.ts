// The extensions' node wiring finds its folders through two environment variables: XDG_STATE_HOME
// (the mail root is `<state>/pi-session-mail`) and PI_CODING_AGENT_DIR (settings, session-mail.json,
// the bus). A test that loads an extension in process points both into a fresh temp folder, so
// nothing it does reaches the user's own state, and puts the old values back after, so the next test,
// or the next file in the same worker, starts from the environment it was given.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface PiEnvSandbox {
  /** The temp folder holding both. */
  readonly dir: string;
  /** XDG_STATE_HOME now: `<dir>/state`, not made (the mail adapter makes its root below it). */
  readonly stateHome: string;
  /** PI_CODING_AGENT_DIR now: `<dir>/agent`, made. */
  readonly agentDir: string;
  /** Puts both variables back as they were (unset if they were unset), then removes the folder. */
  dispose(): void;
}

/** Makes a temp folder named `<tmpdir>/<prefix>XXXXXX` and points both variables into it. */
export function createPiEnvSandbox(prefix: string): PiEnvSandbox {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const stateHome = join(dir, "state");
  const agentDir = join(dir, "agent");
  mkdirSync(agentDir, { recursive: true });
  const saved = { state: process.env.XDG_STATE_HOME, agent: process.env.PI_CODING_AGENT_DIR };
  process.env.XDG_STATE_HOME = stateHome;
  process.env.PI_CODING_AGENT_DIR = agentDir;
  return {
    dir,
    stateHome,
    agentDir,
    dispose() {
      restoreEnv("XDG_STATE_HOME", saved.state);
      restoreEnv("PI_CODING_AGENT_DIR", saved.agent);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Sets `key` back to `value`; an undefined value unsets it (assigning undefined would set "undefined"). */
export function restoreEnv(key: string, value: string | undefined): void {
  if (value === undefined) delete process.env[key];
  else process.env[key] = value;
}
