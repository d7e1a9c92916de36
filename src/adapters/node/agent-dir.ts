import { homedir } from "node:os";
import { join } from "node:path";

/** Pi's agent dir: PI_CODING_AGENT_DIR (a leading ~ expanded), else ~/.pi/agent. Computed here
 * instead of imported from Pi, because importing Pi's package index at load costs seconds. */
export function agentDirFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.PI_CODING_AGENT_DIR;
  if (configured === undefined || configured === "") return join(homedir(), ".pi", "agent");
  if (configured === "~") return homedir();
  return configured.startsWith("~/") ? join(homedir(), configured.slice(2)) : configured;
}
