// The holders' side of a shell write: each holder of a claimed file a command changed gets one event
// naming the files, the session that ran the command, and its first line. Sent without joining (a
// session off the bus changes files too, and the holder must hear of it): the event comes from this
// session's id, under its label when it has one.
import { err, ok, type Result } from "neverthrow";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { BusError } from "../bus-errors.js";
import type { ClaimedWrite } from "../claimed-writes.js";
import { pathShownCharsMax, pathsPerCallMax, shellCommandShownCharsMax, shellWritesNamedMax } from "../limits.js";
import { clipCodePoints } from "../text-clip.js";
import type { BusContext } from "./context.js";
import type { Membership } from "./membership.js";

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
): Result<string[], BusError> {
  const identity = membership.identity();
  if (identity === undefined) return err({ kind: "not-started" });
  const label = membership.member()?.label ?? report.fallbackLabel;
  const firstLine = clipCodePoints(
    (report.command.split(/\r\n|\n|\r/)[0] ?? "").trim(),
    shellCommandShownCharsMax,
  ).text;
  const byHolder = new Map<string, ClaimedWrite[]>();
  for (const write of report.writes) byHolder.set(write.holder.id, [...(byHolder.get(write.holder.id) ?? []), write]);
  const told: string[] = [];
  const nowMs = ctx.clock.now();
  for (const [holder, writes] of byHolder) {
    const named = writes
      .slice(0, shellWritesNamedMax)
      .map((w) => `${clipCodePoints(w.path, pathShownCharsMax).text} (${w.change})`);
    const rest = writes.length - named.length;
    const text = `${label}'s shell command changed files under your claims: ${named.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}. The command: ${firstLine}`;
    const keys = [...new Set(writes.map((w) => w.key))].slice(0, pathsPerCallMax);
    const message = {
      id: ctx.entropy.uuid(),
      from: identity.id,
      fromLabel: label,
      to: holder,
      kind: "event" as const,
      text,
      paths: keys,
      sentAt: isoFromMs(nowMs),
    };
    if (ctx.store.deliver(message, nowMs).isOk()) told.push(holder);
  }
  return ok(told);
}
