// What the model reads when a guard stops its call: the path, whose claim, since when, and what to do
// instead, in two lines, worded so the same call is not tried again.
import { describeConflict } from "../../domain/bus/bus-errors.js";
import type { ClaimConflict } from "../../domain/bus/claim-rules.js";
import type { ClaimedWrite } from "../../domain/bus/claimed-writes.js";
import { labelCharsMax, pathCharsMax } from "../../domain/bus/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import type { ShortIds } from "./short-ids.js";

/** "just now", "for 4 min", "for 2 h 5 min": how long the claim has been held (or, observed, since
 * the holder's last edit of it). */
function heldFor(sinceMs: number | undefined, nowMs: number): string {
  if (sinceMs === undefined) return "";
  const minutes = Math.floor(Math.max(0, nowMs - sinceMs) / 60_000);
  if (minutes < 1) return " since just now";
  if (minutes < 60) return ` for ${minutes} min`;
  return ` for ${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

export function editRefusal(
  conflict: ClaimConflict,
  sinceMs: number | undefined,
  nowMs: number,
  shortIds: ShortIds,
): string {
  const holder = sanitizeField(conflict.holder.label, labelCharsMax);
  const id = shortIds.among([conflict.holder.id])(conflict.holder.id);
  const what = describeConflict(conflict);
  return [
    `Blocked: ${what} (session ${sanitizeField(id, labelCharsMax)})${heldFor(sinceMs, nowMs)}. Nothing was written.`,
    `Do not retry this edit: ask ${holder} for the file with the session tool (action "send", to "${holder}"), wait until ${holder} releases it, or work on something else.`,
  ].join("\n");
}

/** What the model reads after a shell call changed files under live peers' claims: each file, whose
 * claim, and what to do; and how many were not checked (past the watch's bound). */
export function shellWritesText(
  writes: readonly ClaimedWrite[],
  unchecked: number,
  shortIds: ShortIds,
  namedMax: number,
): string {
  const short = shortIds.among(writes.map((w) => w.holder.id));
  const named = writes.slice(0, namedMax).map((w) => {
    const holder = sanitizeField(w.holder.label, labelCharsMax);
    return `${sanitizeField(w.path, pathCharsMax)} (${w.change}; claimed by ${holder}, session ${sanitizeField(short(w.holder.id), labelCharsMax)})`;
  });
  const rest = writes.length - named.length;
  const lines: string[] = [];
  if (named.length > 0) {
    const holders = [...new Set(writes.map((w) => sanitizeField(w.holder.label, labelCharsMax)))];
    lines.push(
      `[session-bus] This command changed files another session has claimed: ${named.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}.`,
      `Their holder${holders.length === 1 ? " was" : "s were"} told. Undo your change to them, or ask ${holders.join(", ")} with the session tool (action "send") before touching them again.`,
    );
  }
  if (unchecked > 0) {
    lines.push(`[session-bus] ${unchecked} claimed files were not checked for changes (past the watch's limit).`);
  }
  return lines.join("\n");
}
