// What the model reads of `status`, held to a budget as an inbox read is: this session's row first,
// then the live sessions, then the gone ones, each with a short id; then the paths they claim, in
// that order, while the budget lasts. What did not fit is counted in one closing line that says
// where to see it, so a bus of thousands of claims costs a few thousand characters, not 400 KB.
import type { SessionRow, StatusView } from "../../domain/bus/engine/index.js";
import { idShownCharsMin, labelCharsMax, pathCharsMax, statusTextCharsMax } from "../../domain/bus/limits.js";
import { labelWithName } from "../../domain/shared/text/same-label.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { uniquePrefixes } from "../../domain/shared/unique-prefix.js";
import type { MailFact, MailFacts } from "../shared/roster.js";
import { mailOnly } from "./roster.js";
import { type ActionText, listeningWords, type ShortId } from "./texts.js";

/** Sessions off the bus named in the status line about them; the rest are counted. */
const mailOnlyShownMax = 8;

const label = (text: string) => sanitizeField(text, labelCharsMax);
const path = (text: string) => sanitizeField(text, pathCharsMax);
const plural = (count: number, one: string, many = `${one}s`) =>
  `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
/** Room kept for the closing line that counts what was left out. */
const closingLineCharsMax = 400;

function selfLine(view: StatusView, short: ShortId): string {
  const { self } = view;
  if (!self.joined || self.label === undefined) {
    return "This session is not on the bus: it joins with join, or at its first send, inbox, claim or release.";
  }
  return `This session: ${label(self.label)} (${short(self.id ?? "")}), listening: ${listeningWords(self.listening)}.`;
}

/** A session's label, with Pi's name before it when the two differ: `Code Reviewer (bus: code-reviewer)`. */
const nameAndLabel = (row: { label: string; name?: string | undefined }): string =>
  labelWithName(row.label, row.name, label);

/** What the mailbox says of a session: busy or idle, and whom it waits on. */
function mailWords(fact: MailFact | undefined): string {
  if (fact === undefined) return "";
  const state = fact.stopped ? `stopped (was ${fact.state})` : fact.state;
  return ` · ${state}${fact.waitingOn === undefined ? "" : `, waiting on ${label(fact.waitingOn)}`}`;
}

/** A row up to its claims: what the row costs before any path is named. */
function rowHead(s: SessionRow, short: ShortId, mail: MailFacts): string {
  const who = `${nameAndLabel(s)}${s.self ? " (this session)" : ` (${short(s.id)})`}`;
  if (s.state === "gone") return `- ${who} · gone: its process ended; its label and paths are free`;
  // A count the listing's bound cut says so: the inbox holds that many or more.
  const atLeast = s.unreadAtLeast ? "at least " : "";
  const unread = s.unread === undefined ? "unread unknown" : `${atLeast}${s.unread.toLocaleString("en-US")} unread`;
  const mine = s.unreadFromThis === undefined ? "" : ` (${s.unreadFromThis.toLocaleString("en-US")} from this session)`;
  return `- ${who} · active${mailWords(mail.get(s.id))} · ${listeningWords(s.listening)} · ${unread}${mine}`;
}

function mailOnlyLine(sessions: readonly MailFact[]): string[] {
  if (sessions.length === 0) return [];
  const each = sessions.slice(0, mailOnlyShownMax).map((f) => `${label(f.name ?? f.id.slice(0, 8))}${mailWords(f)}`);
  const rest = sessions.length - each.length;
  return [`Mail only, not on the bus: ${each.join("; ")}${rest > 0 ? ` and ${rest} more` : ""}.`];
}

interface Shown {
  row: SessionRow;
  head: string;
  paths: string[];
}

/** The claims part of a row: every path, some and a count of the rest, or the count alone. */
function claimsPart(shown: Shown): string {
  const { row, paths } = shown;
  if (row.state === "gone") return "";
  if (row.claims.length === 0) return " · no claims";
  if (paths.length === 0) return ` · ${plural(row.claims.length, "claim")}, not shown`;
  const rest = row.claims.length - paths.length;
  return ` · claims: ${paths.join(", ")}${rest > 0 ? ` and ${rest.toLocaleString("en-US")} more` : ""}`;
}

/** The worst a row's claims part costs before its paths: the count form, or " · no claims". */
const claimsReserve = (row: SessionRow) =>
  row.state === "gone" ? 0 : ` · ${plural(row.claims.length, "claim")}, not shown`.length;

/** This session first, then the live ones, then the gone; each group by label as the engine sorts. */
function byUse(sessions: readonly SessionRow[]): SessionRow[] {
  const rank = (s: SessionRow) => (s.self ? 0 : s.state === "active" ? 1 : 2);
  return [...sessions].sort((a, b) => rank(a) - rank(b));
}

function fitRows(ordered: readonly SessionRow[], short: ShortId, budget: number, mail: MailFacts) {
  const shown: Shown[] = [];
  let left = budget;
  for (const row of ordered) {
    const head = rowHead(row, short, mail);
    const cost = head.length + claimsReserve(row) + 1;
    if (cost > left && !row.self) break;
    shown.push({ row, head, paths: [] });
    left -= cost;
  }
  // Then the paths, row by row in the same order, while they fit: the first that does not ends it.
  fill: for (const s of shown) {
    const observed = new Set(s.row.observed);
    for (const key of s.row.state === "active" ? s.row.claims : []) {
      const named = `${path(key)}${observed.has(key) ? " (observed)" : ""}`;
      // ", " between paths, and " and N more" never costs more than the count form it replaces.
      const cost = named.length + 2 + (s.paths.length === 0 ? " · claims: ".length : 0);
      if (cost > left) break fill;
      s.paths.push(named);
      left -= cost;
    }
  }
  return shown;
}

function closingLine(sessionsLeft: number, claimsLeft: number): string {
  const parts = [
    sessionsLeft > 0 ? `${plural(sessionsLeft, "more session")}` : "",
    claimsLeft > 0 ? `${plural(claimsLeft, "more claim")}` : "",
  ].filter((part) => part !== "");
  return `… ${parts.join(" and ")} not shown. A claim of a held path is refused naming its holder; a person sees every session and claim in /sessions.`;
}

/** `short` names each id; by default, its shortest prefix among the sessions of this view. `mail`:
 * what the mailbox of this process says of each session (busy or idle, whom it waits on). */
export function statusText(view: StatusView, short = viewShortener(view), mail: MailFacts = new Map()): ActionText {
  const active = view.sessions.filter((s) => s.state === "active");
  const claimCount = active.reduce((n, s) => n + s.claims.length, 0);
  const head = `${selfLine(view, short)}\nSessions (${active.length} active):`;
  const unreadable =
    view.unreadableRecords > 0 ? `\n${plural(view.unreadableRecords, "session record")} this build cannot read.` : "";
  const others = mailOnlyLine(mailOnly(view, mail));
  const budget = statusTextCharsMax - head.length - unreadable.length - closingLineCharsMax - (others[0]?.length ?? 0);
  const shown = fitRows(byUse(view.sessions), short, budget, mail);
  const lines = [...shown.map((s) => `${s.head}${claimsPart(s)}`), ...others];
  lines.push(...offerLines(view, short, budget - lines.reduce((n, line) => n + line.length + 1, 0)));
  const sessionsLeft = view.sessions.length - shown.length;
  const claimsLeft = claimCount - shown.reduce((n, s) => n + s.paths.length, 0);
  if (sessionsLeft > 0 || claimsLeft > 0) lines.push(closingLine(sessionsLeft, claimsLeft));
  const listing = lines.length === 0 ? "Nobody has joined the bus on this repository." : lines.join("\n");
  // The details keep what the text shows (the session file keeps them), with the counts of the rest.
  const sessions = shown.map((s) => ({ ...s.row, claims: s.row.claims.slice(0, s.paths.length) }));
  return {
    text: `${head}\n${listing}${unreadable}`,
    summary: `${plural(active.length, "active session")} · ${plural(claimCount, "claim")}`,
    data: { ...view, sessions, sessionsLeft, claimsLeft },
  };
}

/** A handoff's offer that stands, one line each while they fit (the rest counted). */
function offerLines(view: StatusView, short: ShortId, budget: number): string[] {
  const lines: string[] = [];
  let left = budget;
  for (const offer of view.offers) {
    const who = `${label(offer.from.label)} (${short(offer.from.id)}) offers ${label(offer.to.label)}`;
    const line = `- ${who} the claims on ${offer.keys.map(path).join(", ")} (handoff ${label(offer.id)})`;
    if (line.length + 1 > left) {
      lines.push(`- … ${plural(view.offers.length - lines.length, "more offer")}`);
      break;
    }
    lines.push(line);
    left -= line.length + 1;
  }
  return lines.length === 0 ? [] : ["Offers:", ...lines];
}

/** Every session id a status view names: the ones its short ids must keep apart. */
export function viewIds(view: StatusView): string[] {
  const ids = view.sessions.map((s) => s.id);
  return view.self.id === undefined ? ids : [...ids, view.self.id];
}

function viewShortener(view: StatusView): ShortId {
  const prefixes = uniquePrefixes(viewIds(view), idShownCharsMin);
  return (id) => prefixes.get(id) ?? id;
}
