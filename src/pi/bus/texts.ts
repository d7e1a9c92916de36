// What the model reads of each `session` action, and the one-line summary a person sees collapsed.
// Everything a peer wrote (labels, ids, paths, bodies) is sanitized here; a body's lines are
// indented, so no line of a peer's text can pass for a row of the result.

import { describeBusStoreError } from "../../domain/bus/bus-errors.js";
import type {
  ClaimReport,
  InboxRead,
  JoinReport,
  ListeningState,
  ReleaseReport,
  SendReport,
  StatusView,
} from "../../domain/bus/engine/index.js";
import { shownPaths } from "../../domain/bus/inbox-read.js";
import { labelCharsMax, pathCharsMax } from "../../domain/bus/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";

export interface ActionText {
  /** What the model reads. */
  text: string;
  /** The collapsed line in the TUI. */
  summary: string;
}

/** Unreadable inbox files named by one read; the rest are counted (a junk-filled inbox could name
 * thousands). */
const unreadableNamedMax = 10;

const label = (text: string) => sanitizeField(text, labelCharsMax);
const path = (text: string) => sanitizeField(text, pathCharsMax);
const paths = (list: readonly string[]) => list.map(path).join(", ");
const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

export function listeningWords(state: ListeningState | "unknown"): string {
  switch (state) {
    case "wake":
      return "wake";
    case "next-turn":
      return "next turn";
    case "off":
      return "not listening";
    case "unknown":
      return "unknown";
    default: {
      const never: never = state;
      return never;
    }
  }
}

/** A body a peer wrote, line by line, indented under its header. */
export function indentBody(body: string, charsMax: number): string {
  return body
    .split(/\r\n|\n|\r/)
    .map((line) => `  ${sanitizeField(line, charsMax)}`)
    .join("\n");
}

function selfLine(view: StatusView): string {
  const { self } = view;
  if (!self.joined || self.label === undefined) {
    return "This session is not on the bus: it joins with join, or at its first send, inbox, claim or release.";
  }
  return `This session: ${label(self.label)} (${label(self.id ?? "")}), listening: ${listeningWords(self.listening)}.`;
}

export function statusText(view: StatusView): ActionText {
  const rows = view.sessions.map((s) => {
    const who = `${label(s.label)}${s.self ? " (this session)" : ` (${label(s.id)})`}`;
    if (s.state === "gone") return `- ${who} · gone: its process ended; its label and paths are free`;
    const unread = s.unread === undefined ? "unread unknown" : `${s.unread} unread`;
    const stopped = s.stopped ? " · stopped (Ctrl-Z): reads nothing until continued" : "";
    const claims = s.claims.length === 0 ? "no claims" : `claims: ${paths(s.claims)}`;
    return `- ${who} · active · ${listeningWords(s.listening)} · ${unread} · ${claims}${stopped}`;
  });
  const active = view.sessions.filter((s) => s.state === "active").length;
  const claimCount = view.sessions.reduce((n, s) => n + (s.state === "active" ? s.claims.length : 0), 0);
  const listing = rows.length === 0 ? "Nobody has joined the bus on this repository." : rows.join("\n");
  const unreadable =
    view.unreadableRecords > 0 ? `\n${plural(view.unreadableRecords, "session record")} this build cannot read.` : "";
  return {
    text: `${selfLine(view)}\nSessions (${active} active):\n${listing}${unreadable}`,
    summary: `${plural(active, "active session")} · ${plural(claimCount, "claim")}`,
  };
}

export function sendText(report: SendReport): ActionText {
  const to = report.delivered.map((r) => `${label(r.label)} (${label(r.id)})`).join(", ");
  const about = report.paths.length > 0 ? ` about ${shownPaths(report.paths)}` : "";
  const failed = report.failed.map((f) => `${label(f.label)} (${label(f.id)}: ${describeBusStoreError(f.error)})`);
  const missed =
    failed.length === 0
      ? ""
      : `\nNot delivered to: ${failed.join(", ")}. Ask them again; do not repeat this send (the others would get it twice).`;
  return {
    text: `Sent ${report.kind} ${label(report.messageId)}${about} to ${to}.${missed}`,
    summary: `${report.kind} → ${report.delivered.map((r) => label(r.label)).join(", ")}${failed.length > 0 ? ` (missed ${failed.length})` : ""}`,
  };
}

export function inboxText(read: InboxRead): ActionText {
  const rows = read.rows.map(
    (row) => `${row.header}\n${indentBody(row.body, pathCharsMax * 4)}${row.clipped ? " …" : ""}`,
  );
  const lines = rows.length === 0 ? ["No unread mail."] : rows;
  if (read.more > 0) lines.push(`… ${read.more} more`);
  if (read.unreadable.length > 0) {
    const named = read.unreadable.slice(0, unreadableNamedMax).map((u) => path(u.name));
    const rest = read.unreadable.length - named.length;
    const more = rest > 0 ? ` and ${rest} more` : "";
    lines.push(`Mail this build cannot read: ${named.join(", ")}${more} — left on disk, cleared by the TTL.`);
  }
  if (read.consumeFailed !== undefined)
    lines.push("These could not be removed from the inbox: they will be shown again.");
  const more = read.more > 0 ? ` (+${read.more} more)` : "";
  return { text: lines.join("\n"), summary: `${plural(read.rows.length, "message")}${more}` };
}

export function claimText(report: ClaimReport): ActionText {
  const fresh = report.claimed.filter((key) => !report.alreadyHeld.includes(key));
  const held = report.alreadyHeld.length > 0 ? ` Already held: ${paths(report.alreadyHeld)}.` : "";
  const claimed = fresh.length > 0 ? `Claimed ${paths(fresh)}.` : "Nothing new to claim.";
  return { text: `${claimed}${held}`, summary: `claimed ${paths(report.claimed)}` };
}

export function releaseText(report: ReleaseReport): ActionText {
  const parts: string[] = [];
  if (report.released.length > 0) parts.push(`Released ${paths(report.released)}.`);
  if (report.notClaimed.length > 0) parts.push(`Not claimed: ${paths(report.notClaimed)}.`);
  for (const other of report.heldByOthers) {
    parts.push(`${path(other.path)} is claimed by ${label(other.holder.label)}, not by this session.`);
  }
  return { text: parts.join(" "), summary: `released ${plural(report.released.length, "path")}` };
}

function reachWords(report: JoinReport): string {
  if (!report.listening) return "not listening: mail waits in the inbox until session inbox reads it";
  if (report.wake) return "wake: new mail raises a turn as soon as this session is idle";
  return "next turn: new mail is reported with the next prompt";
}

export function joinText(report: JoinReport): ActionText {
  const was =
    report.previousLabel !== undefined && report.previousLabel !== report.label
      ? ` (was ${label(report.previousLabel)})`
      : "";
  const named = report.named ? ` Pi's session name is now ${label(report.label)}.` : "";
  return {
    text: `On the bus as ${label(report.label)}${was} (${label(report.id)}); ${reachWords(report)}.${named}`,
    summary: `joined as ${label(report.label)} · ${report.listening ? (report.wake ? "wake" : "next turn") : "not listening"}`,
  };
}
