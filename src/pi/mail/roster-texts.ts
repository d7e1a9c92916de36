// The running sessions as the mailbox lists them (session_mail_list, /mailbox alone), each in one line
// with what the bus of this process knows of it: its label where it differs from the name, its
// claims and how it listens for bus mail.
import type { Address } from "../../domain/mail/address.js";
import { displayName, displayNames } from "../../domain/mail/addressing.js";
import type { ListedSession, MailIdentity } from "../../domain/mail/engine/index.js";
import { labelFieldCharsMax, mailboxListedMax } from "../../domain/mail/limits.js";
import { nameWithLabel } from "../../domain/shared/text/same-label.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import type { BusFact, BusFacts } from "../shared/roster.js";

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

function doubt(s: ListedSession): string {
  if (s.elsewhere)
    return " (runs in another pid namespace, a sandbox or container: its process cannot be checked from here)";
  return s.liveness === "unknown" ? " (cannot tell whether it still runs)" : "";
}

function stateOf(s: ListedSession): string {
  return s.stopped ? `stopped (suspended with Ctrl-Z; fg in its terminal resumes it), was ${s.state}` : s.state;
}

/** A session's name as a listing shows it: its name, or the shortest id prefix that reaches it. */
export function namer(sessions: readonly ListedSession[]): (address: string) => string | undefined {
  const names = displayNames(sessions);
  return (address) => {
    const name = names.get(address as Address);
    return name === undefined ? undefined : field(name);
  };
}

/** `name` is shown already (sanitized, which is idempotent): the label is sanitized the same way. */
const withLabel = (name: string, label: string | undefined) => nameWithLabel(name, label, field);

const listeningWords = {
  wake: "wakes for bus mail",
  "next-turn": "reads bus mail at its next turn",
  off: "not listening",
};

/** `; bus: 2 claims, wakes for bus mail`, or nothing for a session not on this repository's bus. */
function busPart(fact: BusFact | undefined): string {
  if (fact === undefined) return "";
  const claims = fact.claims === 1 ? "1 claim" : `${fact.claims.toLocaleString("en-US")} claims`;
  return `; bus: ${claims}, ${listeningWords[fact.listening]}`;
}

const unnamedHint =
  "A session without a name shows the shortest prefix of its id that reaches it; /name in that session gives it a name.";

/** `queued`: how many of this session's requests, asks and messages each session has not claimed yet. */
export function describeSessions(
  sessions: readonly ListedSession[],
  bus: BusFacts = new Map(),
  queued: ReadonlyMap<string, number> = new Map(),
): string {
  if (sessions.length === 0) return "No session is running.";
  const nameOf = namer(sessions);
  const lines = sessions.map((s) => {
    const target = nameOf(s.waitingOn);
    const waiting =
      s.waitingOn === ""
        ? ""
        : `, waiting on ${target === undefined ? field(s.waitingOn) : `${target} (${s.waitingOn})`}`;
    const self = s.self ? " (this session)" : "";
    const fact = bus.get(s.address);
    const name = withLabel(nameOf(s.address) ?? field(displayName(s)), fact?.label ?? s.label);
    const count = queued.get(s.address) ?? 0;
    const mine = count === 0 ? "" : `, ${count} of this session's mail queued for it`;
    return `- ${name} ${s.address}${self}: ${stateOf(s)}${waiting}${mine}, working in ${field(s.cwd)}${doubt(s)}${busPart(fact)}`;
  });
  if (sessions.some((s) => s.name === undefined || s.name === "")) lines.push(unnamedHint);
  return lines.join("\n");
}

/** /mailbox alone: this session's address and name, then the running sessions for a person. */
export function describeMailbox(
  me: MailIdentity | undefined,
  sessions: readonly ListedSession[],
  bus: BusFacts = new Map(),
): string {
  if (me === undefined) return "No address yet.";
  const nameOf = namer(sessions);
  const shownName = (s: { address: string; name?: string | undefined }) => nameOf(s.address) ?? field(displayName(s));
  const rows = sessions
    .map((s) => ({ s, name: shownName(s) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const myLabel = bus.get(me.address)?.label ?? me.label;
  const lines = [`Address ${me.address}, name ${withLabel(shownName(me), myLabel)}`, "Running sessions:"];
  for (const { s, name } of rows.slice(0, mailboxListedMax)) {
    const waiting = s.waitingOn === "" ? "" : `, waiting on ${nameOf(s.waitingOn) ?? field(s.waitingOn)}`;
    const self = s.self ? " (this session)" : "";
    const fact = bus.get(s.address);
    const shown = withLabel(name, fact?.label ?? s.label);
    lines.push(`- ${shown}${self}: ${stateOf(s)}${waiting}, working in ${field(s.cwd)}${doubt(s)}${busPart(fact)}`);
  }
  if (rows.length > mailboxListedMax) lines.push(`… and ${rows.length - mailboxListedMax} more.`);
  if (sessions.some((s) => s.name === undefined || s.name === "")) lines.push(unnamedHint);
  return lines.join("\n");
}
