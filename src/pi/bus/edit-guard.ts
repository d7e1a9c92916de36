// The edit check: before the model's `edit` or `write` runs, in every session of the repository,
// joined or not, the path is checked against every live claim. A live peer's claim blocks it with a
// reason the model can act on; a path nobody holds goes through (and a joined, observing session
// claims it, observed). Only the model's tool calls reach this handler: a person's `!` commands and
// editor are never checked. Anything that keeps the check from reading the claims lets the edit
// through and tells the person once: the guard never blocks on its own fault.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describeBusError } from "../../domain/bus/bus-errors.js";
import type { EditVerdict } from "../../domain/bus/engine/index.js";
import { editRefusal } from "./guard-texts.js";
import type { BusAccess } from "./session-tool.js";
import { toolPath } from "./tool-paths.js";

/** Pi 1.6's built-in tools that write a file the model names: `edit` and `write` (bash and
 * powershell write what their command says; they are seen after the fact, not checked here). */
const writingTools = new Set(["edit", "write"]);

export function registerEditGuard(pi: ExtensionAPI, access: BusAccess): void {
  pi.on("tool_call", (event, piContext) => {
    if (!writingTools.has(event.toolName)) return undefined;
    try {
      const given = (event.input as { path?: unknown }).path;
      if (typeof given !== "string") return undefined;
      const engine = access.engine(true);
      if (engine === undefined) return undefined;
      const verdict = engine.checkEdit(toolPath(given, piContext.cwd));
      if (verdict.isErr()) {
        if (verdict.error.kind !== "not-started") {
          access.guardFailed(
            "edit-check",
            `Claims were not checked before an edit: ${describeBusError(verdict.error)} Edits go through unchecked until the bus can be read.`,
          );
        }
        return undefined;
      }
      return blockFor(verdict.value, access);
    } catch (error) {
      // A handler that throws blocks the call in Pi: the guard's own fault must never do that.
      access.guardFailed("edit-check-threw", `Claims were not checked before an edit: ${String(error)}`);
      return undefined;
    }
  });
}

function blockFor(verdict: EditVerdict, access: BusAccess): { block: true; reason: string } | undefined {
  switch (verdict.kind) {
    case "free":
    case "own":
    case "observed":
      return undefined;
    case "held":
      return { block: true, reason: editRefusal(verdict.conflict, verdict.sinceMs, Date.now(), access.shortIds) };
    default: {
      const never: never = verdict;
      return never;
    }
  }
}
