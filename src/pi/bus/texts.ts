// What the model reads of each `session` action, and the one-line summary a person sees collapsed.
// Everything a peer wrote (labels, ids, paths, bodies) is sanitized here; a body's lines are
// indented, so no line of a peer's text can pass for a row of the result.

import { describeBusStoreError, describeConflict } from "../../domain/bus/bus-errors.js";
import type {
  AcceptReport,
  ClaimReport,
  InboxRead,
  JoinReport,
  ListeningState,
  ReleaseReport,
  SendReport,
} from "../../domain/bus/engine/index.js";
import { inboxRowHeader, shownPaths } from "../../domain/bus/inbox-read.js";
import { labelCharsMax, observedLapseMs, pathCharsMax } from "../../domain/bus/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import type { BusWarning } from "../../ports/bus/bus-host.js";

export interface ActionText {
  /** What the model reads. */
  text: string;
  /** The collapsed line in the TUI. */
  summary: string;
  /** The details' result, when not the engine's value whole (a status of 20,000 claims). */
  data?: unknown;
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

/** A session id as a line shows it: the shortest prefix that tells it apart (see short-ids.ts). */
export type ShortId = (id: string) => string;
const fullId: ShortId = (id) => id;

/** The ids a send report names, for the shortener that keeps them apart. */
export const sendIds = (report: SendReport) => [...report.delivered, ...report.failed].map((r) => r.id);

export function sendText(report: SendReport, short: ShortId = fullId): ActionText {
  const id = (raw: string) => label(short(raw));
  const to = report.delivered.map((r) => `${label(r.label)} (${id(r.id)})`).join(", ");
  const about = report.paths.length > 0 ? ` about ${shownPaths(report.paths)}` : "";
  const failed = report.failed.map((f) => `${label(f.label)} (${id(f.id)}: ${describeBusStoreError(f.error)})`);
  const missed =
    failed.length === 0
      ? ""
      : `\nNot delivered to: ${failed.join(", ")}. Ask them again; do not repeat this send (the others would get it twice).`;
  // A bus ask is a message marked as a question: nothing waits for its answer, and the model must
  // not think something does.
  const noWait =
    report.kind === "ask"
      ? "\nA bus ask does not wait: an answer, if one comes, arrives in your bus inbox like any message. To wait for an answer, ask with session_mail_ask (the mailbox) instead."
      : "";
  return {
    text: `Sent ${report.kind}${about} to ${to}.${missed}${noWait}`,
    summary: `${report.kind} → ${report.delivered.map((r) => label(r.label)).join(", ")}${failed.length > 0 ? ` (missed ${failed.length})` : ""}`,
  };
}

/** The ids an inbox read names (its senders), for the shortener that keeps them apart. */
export const inboxIds = (read: InboxRead) => read.rows.map((row) => row.message.from);

export function inboxText(read: InboxRead, short: ShortId = fullId): ActionText {
  // The header as the budget counted it, the sender's id shortened: never longer than counted.
  const header = (row: InboxRead["rows"][number]) =>
    inboxRowHeader({ ...row.message, from: short(row.message.from) }, row.repeats);
  const rows = read.rows.map(
    (row) => `${header(row)}\n${indentBody(row.body, pathCharsMax * 4)}${row.clipped ? " …" : ""}`,
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

export function acceptText(report: AcceptReport, short: ShortId = fullId): ActionText {
  const from = `${label(report.from.label)} (${label(short(report.from.id))})`;
  const released = report.released.length > 0 ? ` ${from} had released ${paths(report.released)} since.` : "";
  const lost =
    report.lost.length > 0
      ? ` Not taken, since another session claimed it in the same instant: ${report.lost.map(describeConflict).join("; ")}.`
      : "";
  return {
    text: `Took ${paths(report.taken)} from ${from}: they are this session's claims now.${released}${lost}`,
    summary: `took ${plural(report.taken.length, "path")} from ${label(report.from.label)}`,
  };
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

export function joinText(report: JoinReport, short: ShortId = fullId): ActionText {
  const was =
    report.previousLabel !== undefined && report.previousLabel !== report.label
      ? ` (was ${label(report.previousLabel)})`
      : "";
  const named = report.named ? ` Pi's session name is now ${label(report.label)}.` : "";
  const edits = report.observing
    ? ` Files you edit are claimed for you (observed: each lapses ${observedLapseMs / 60_000} minutes after your last edit of it).`
    : " Your edits claim nothing on their own (observe off).";
  return {
    text: `On the bus as ${label(report.label)}${was} (${label(short(report.id))}); ${reachWords(report)}.${named}${edits}`,
    summary: `joined as ${label(report.label)} · ${report.listening ? (report.wake ? "wake" : "next turn") : "not listening"}`,
  };
}

/** Bus folders found open to other users and closed again (the store's `bus-opened` warning). */
export function busOpenedText(warning: Extract<BusWarning, { kind: "bus-opened" }>): string {
  const mode = (bits: number) => `0${(bits & 0o7777).toString(8).padStart(3, "0")}`;
  const others = plural(warning.setAside, "file or folder", "files or folders");
  const aside =
    warning.setAside === 0
      ? "no other user had put anything in them"
      : `${others} other users had put there ${warning.setAside === 1 ? "was" : "were"} set aside, never read as a claim, record or message`;
  const above =
    warning.ancestor === undefined
      ? ""
      : ` ${path(warning.ancestor.path)}, above the bus folder, is still open to others (mode ${mode(warning.ancestor.mode)}): run chmod go-w ${path(warning.ancestor.path)} (no new session opens the bus until then).`;
  return `The bus folder ${path(warning.path)} could be written by other users (mode ${mode(warning.mode)}): this session closed ${plural(warning.folders, "bus folder")} again (0700), and ${aside}. Another user may have removed a claim while it was open: check session status, and claim again what is missing.${above}`;
}
