// The words of the TUI's compact views: one-line summaries of tool results, a waiting ask's
// progress, and the header of injected mail. The model reads none of them (texts.ts has its words).

import { displayName } from "../../domain/mail/addressing.js";
import type { AskOutcome, ListedSession } from "../../domain/mail/engine/index.js";
import { askWaitMs, labelFieldCharsMax, mailboxListedMax, shownLineCharsMax } from "../../domain/mail/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { namer } from "./roster-texts.js";

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

/** A wait as a person reads it: seconds under a minute, then minutes and seconds. */
function duration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds} s`;
  const rest = seconds % 60;
  return rest === 0 ? `${seconds / 60} min` : `${Math.floor(seconds / 60)} min ${rest} s`;
}

/** A waiting ask's progress: whom it waits on, and for how long so far. */
export function describeAskProgress(name: string, waitedMs: number): string {
  const limit = duration(askWaitMs);
  return waitedMs === 0
    ? `Asked ${field(name)}; waiting for its answer (up to ${limit}).`
    : `Waiting on ${field(name)} for ${duration(waitedMs)} (up to ${limit}).`;
}

/** The first line of text in a body a peer wrote, safe to show on one line. */
function firstLine(body: string): string {
  const line = body.split("\n").find((l) => l.trim() !== "") ?? "";
  return sanitizeField(line.trim(), shownLineCharsMax);
}

/** session_mail_list on one line: how many run, by name. */
export function summarizeSessions(sessions: readonly ListedSession[]): string {
  if (sessions.length === 0) return "No session is running.";
  const nameOf = namer(sessions);
  const shown = sessions
    .slice(0, mailboxListedMax)
    .map((s) => `${nameOf(s.address) ?? field(displayName(s))}${s.self ? " (this session)" : ""}`);
  const more = sessions.length > shown.length ? `, and ${sessions.length - shown.length} more` : "";
  return `${sessions.length} running: ${shown.join(", ")}${more}`;
}

/** session_mail_send on one line: to whom, whether it runs, where the message is. */
export function summarizeSent(name: string, running: boolean): string {
  return running
    ? `Sent to ${field(name)} (running): delivered now.`
    : `Sent to ${field(name)} (not running): it waits in its inbox until that session starts.`;
}

/** session_mail_ask on one line: who answered and the answer's first line, or how the wait ended. */
export function summarizeAsk(outcome: AskOutcome, name: string): string {
  const who = field(name);
  switch (outcome.kind) {
    case "answered":
      return outcome.envelope.status === "done"
        ? `${who} answered: ${firstLine(outcome.envelope.body)}`
        : `${who}: not an answer (${field(outcome.envelope.status)}): ${firstLine(outcome.envelope.body)}`;
    case "timeout":
      return `No answer from ${who} after ${duration(askWaitMs)}.`;
    case "target-gone":
      return `${who} stopped running before it answered.`;
    case "aborted":
      return `Stopped waiting for ${who}: the run was stopped.`;
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** The header of injected mail in the TUI: its kind, its sender's name, and a reply's status. */
export function mailHeader(kind: string, sender: string, status: string | undefined): string {
  const from = field(sender);
  switch (kind) {
    case "request":
      return `✉ request from ${from}`;
    case "ask":
      return `✉ ask from ${from}, waiting for the answer`;
    case "message":
      return `✉ message from ${from}`;
    case "reply":
      return status === undefined || status === "done"
        ? `✉ reply from ${from} · done`
        : `✉ reply from ${from} · ${field(status)}, not an answer`;
    default:
      // details come from the session file, which any process of the user can edit.
      return `✉ mail from ${from}`;
  }
}

/** Said after a collapsed view, with the key that expands it. */
export function expandHint(hiddenLines: number): string {
  return hiddenLines > 0 ? `${hiddenLines} more line${hiddenLines === 1 ? "" : "s"}` : "the whole text";
}
