// The holders' side of a shell write: each holder of a claimed file a command changed gets one event
// naming the files, the session that ran the command, and its first line. Sent without joining (a
// session off the bus changes files too, and the holder must hear of it): the event comes from this
// session's id, under its label when it has one. A holder gone since the look is not written to: its
// inbox has no reader any more.

import { err, ok, type Result } from "neverthrow";
import { clipCodePoints } from "../../shared/text/code-points.js";
import { firstLine } from "../../shared/text/first-line.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { BusError } from "../bus-errors.js";
import type { ClaimedWrite } from "../claimed-writes.js";
import { pathShownCharsMax, pathsPerCallMax, shellCommandShownCharsMax, shellWritesNamedMax } from "../limits.js";
import type { BusContext } from "./context.js";
import type { Membership } from "./membership.js";
import { readSessions } from "./peers.js";

export interface ClaimedWriteReport {
  writes: readonly ClaimedWrite[];
  /** The command as the model wrote it. */
  command: string;
  /** How this session is named when it is not on the bus (its short id). */
  fallbackLabel: string;
}

/** The ids of the holders told. */
export function reportClaimedWrites(
  ctx: BusContext,
  membership: Membership,
  report: ClaimedWriteReport,
  hops: number,
): Result<string[], BusError> {
  const identity = membership.identity();
  if (identity === undefined) return err({ kind: "not-started" });
  const label = membership.member()?.label ?? report.fallbackLabel;
  const byHolder = new Map<string, ClaimedWrite[]>();
  for (const write of report.writes) byHolder.set(write.holder.id, [...(byHolder.get(write.holder.id) ?? []), write]);
  const holders = readSessions(ctx, byHolder.keys());
  if (holders.isErr()) return err(holders.error);
  const live = new Set(holders.value.filter((s) => s.state === "active").map((s) => s.record.id));
  const told: string[] = [];
  const nowMs = ctx.clock.now();
  for (const [holder, writes] of byHolder) {
    if (!live.has(holder)) continue;
    const message = {
      id: ctx.entropy.uuid(),
      from: identity.id,
      fromLabel: label,
      to: holder,
      kind: "event" as const,
      text: eventText(label, writes, report.command),
      paths: [...new Set(writes.map((w) => w.key))].slice(0, pathsPerCallMax),
      sentAt: isoFromMs(nowMs),
      hops,
    };
    if (ctx.store.deliver(message, nowMs).isOk()) told.push(holder);
  }
  return ok(told);
}

function eventText(label: string, writes: readonly ClaimedWrite[], command: string): string {
  const named = writes
    .slice(0, shellWritesNamedMax)
    .map((w) => `${clipCodePoints(w.path, pathShownCharsMax).text} (${w.change})`);
  const rest = writes.length - named.length;
  return `${label}'s shell command changed files under your claims: ${named.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}. The command: ${commandLine(command)}`;
}

/** The command's first line that says something, clipped. */
function commandLine(command: string): string {
  return clipCodePoints(firstLine(command), shellCommandShownCharsMax).text;
}
