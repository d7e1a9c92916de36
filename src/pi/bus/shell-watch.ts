// Shell writes, seen and named. A `bash` command cannot be mapped to the paths it writes before it
// runs, so nothing is stopped: around each of the model's `bash` calls the files under live peers'
// claims are stamped before and after, and each one the call changed is named in the tool result
// (which file, whose claim, what to do) and to its holder (an event naming the file, this session
// and the command's first line). A look that cannot read the claims lets the call be, and the
// person is told once. Nothing here may throw out of a handler.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { stampClaims } from "../../adapters/node/claimed-files.js";
import { describeBusError } from "../../domain/bus/bus-errors.js";
import { type ClaimedWrite, claimedWrites, type WatchLook } from "../../domain/bus/claimed-writes.js";
import { shellWatchFilesMax, shellWritesNamedMax } from "../../domain/bus/limits.js";
import { shellWritesText } from "./guard-texts.js";
import type { BusAccess } from "./session-tool.js";

/** Calls whose look before is kept until their result: one per call id, dropped at its end. */
interface Watched {
  command: string;
  before: WatchLook;
  claims: Parameters<typeof stampClaims>[0];
}

export function registerShellWatch(pi: ExtensionAPI, access: BusAccess): void {
  const watched = new Map<string, Watched>();
  pi.on("tool_call", (event) => {
    if (event.toolName !== "bash") return undefined;
    try {
      const command = (event.input as { command?: unknown }).command;
      const claims = access.engine(true)?.watchedClaims();
      if (typeof command !== "string" || claims === undefined) return undefined;
      if (claims.isErr()) {
        if (claims.error.kind !== "not-started") {
          access.guardFailed(
            "shell-watch",
            `Shell commands are not watched for writes to claimed files: ${describeBusError(claims.error)}`,
          );
        }
        return undefined;
      }
      if (claims.value.length === 0) return undefined;
      watched.set(event.toolCallId, {
        command,
        claims: claims.value,
        before: stampClaims(claims.value, shellWatchFilesMax),
      });
    } catch (error) {
      access.guardFailed(
        "shell-watch-threw",
        `A shell command ran without the watch on claimed files: ${String(error)}`,
      );
    }
    return undefined;
  });
  pi.on("tool_result", (event, piContext) => {
    const call = event.toolName === "bash" ? watched.get(event.toolCallId) : undefined;
    if (call === undefined) return undefined;
    watched.delete(event.toolCallId);
    try {
      const after = stampClaims(call.claims, shellWatchFilesMax);
      const writes = claimedWrites(call.before, after);
      const unchecked = Math.max(call.before.uncheckedFiles, after.uncheckedFiles);
      if (writes.length === 0 && unchecked === 0) return undefined;
      if (writes.length > 0) tellHolders(access, writes, call.command, piContext.sessionManager.getSessionId());
      const text = shellWritesText(writes, unchecked, access.shortIds, shellWritesNamedMax);
      return { content: [...event.content, { type: "text" as const, text }] };
    } catch (error) {
      access.guardFailed(
        "shell-watch-threw",
        `A shell command's writes to claimed files were not checked: ${String(error)}`,
      );
      return undefined;
    }
  });
  // A blocked or aborted call has no result: its look goes with its end.
  pi.on("tool_execution_end", (event) => void watched.delete(event.toolCallId));
}

function tellHolders(access: BusAccess, writes: readonly ClaimedWrite[], command: string, sessionId: string): void {
  const engine = access.engine(true);
  // Off the bus it has no label: its short id names it.
  const fallbackLabel = `session ${access.shortIds.among([sessionId])(sessionId)}`;
  const told = engine?.reportClaimedWrites({ writes, command, fallbackLabel });
  if (told?.isErr() === true) {
    access.guardFailed(
      "shell-report",
      `A holder could not be told of a write to its claim: ${describeBusError(told.error)}`,
    );
  }
}
