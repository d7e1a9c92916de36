import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/** `$XDG_STATE_HOME/pi-session-mail`, or `~/.local/state/pi-session-mail` when XDG_STATE_HOME is
 * unset or not absolute. Read at every call, as the spec asks. */
export function mailRootFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const state = env.XDG_STATE_HOME;
  const base = state !== undefined && state !== "" && isAbsolute(state) ? state : join(homedir(), ".local", "state");
  return join(base, "pi-session-mail");
}
