// The one-line rows of the board's three lists, each with the key that keeps a selection on it
// across repaints. Every peer-written string is stripped of escapes and controls here.
import { displayWidth, fitToWidth, stripUnsafe } from "../../shared/display-width.js";
import type { BoardSnapshot, ClaimRow, InboxRow, SessionRow } from "./board-model.js";

export type Tab = "sessions" | "inbox" | "claims";

export const tabs: readonly Tab[] = ["sessions", "inbox", "claims"];

interface ListRow {
  key: string;
  text: string;
}

// A label column wide enough for most labels; a longer one is cut there, the pane shows it whole.
const labelColumnsMax = 24;

/** Peer text made safe to draw on one line: a newline it holds can never start a line of its own. */
export function oneLine(text: string): string {
  return stripUnsafe(text);
}

/** The sessions the board lists: this session's own row only once it joined (an unjoined reader is not on the bus). */
export function visibleSessions(snapshot: BoardSnapshot): readonly SessionRow[] {
  return snapshot.sessions.filter((row) => !row.self || snapshot.self.joined);
}

export function inboxKey(row: InboxRow): string {
  return row.type === "message" ? `message:${row.id}` : `file:${row.file}`;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

function sessionText(row: SessionRow, labelColumns: number): string {
  const label = fitToWidth(`${oneLine(row.label)}${row.self ? " (you)" : ""}`, labelColumns);
  const listening = row.state === "gone" ? "" : `  ${row.listening}`;
  return `${label}  ${row.state}${listening}  ${row.unread} unread  ${plural(row.claims.length, "claim")}`;
}

function inboxText(row: InboxRow): string {
  if (row.type === "unreadable") return `unreadable file ${oneLine(row.file)}`;
  const paths = row.paths.length === 0 ? "" : `  [${plural(row.paths.length, "path")}]`;
  return `${oneLine(row.fromLabel)}  ${row.kind}${paths}  ${oneLine(row.text)}`;
}

function claimText(row: ClaimRow): string {
  return `${oneLine(row.key)}  ${oneLine(row.ownerLabel)}${row.own ? " (you)" : ""}`;
}

function sessionRows(snapshot: BoardSnapshot): ListRow[] {
  const rows = visibleSessions(snapshot);
  const widest = Math.max(0, ...rows.map((row) => displayWidth(oneLine(row.label)) + (row.self ? 6 : 0)));
  const labelColumns = Math.min(labelColumnsMax, widest);
  return rows.map((row) => ({ key: row.id, text: sessionText(row, labelColumns) }));
}

/** The rows of one tab, in the order the snapshot gives them. */
export function listRows(snapshot: BoardSnapshot, tab: Tab): ListRow[] {
  switch (tab) {
    case "sessions":
      return sessionRows(snapshot);
    case "inbox":
      return snapshot.inbox.map((row) => ({ key: inboxKey(row), text: inboxText(row) }));
    case "claims":
      return snapshot.claims.map((row) => ({ key: row.key, text: claimText(row) }));
    default: {
      const never: never = tab;
      return never;
    }
  }
}

/** What a tab says when it has no rows. */
export function emptyText(snapshot: BoardSnapshot, tab: Tab): string {
  switch (tab) {
    case "sessions":
      return "Nobody has joined the bus on this repository yet.";
    case "inbox":
      return snapshot.self.joined ? "No unread mail." : "This session has not joined, so no mail reaches it.";
    case "claims":
      return "No claims on this repository.";
    default: {
      const never: never = tab;
      return never;
    }
  }
}
