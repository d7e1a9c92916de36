// The one-line rows of the board's three lists, each with the key that keeps a selection on it
// across repaints. Every peer-written string is stripped of escapes and controls here.
import { labelWithName } from "../../../domain/shared/text/same-label.js";
import { displayWidth, fitToWidth, stripUnsafe } from "../../shared/display-width.js";
import type { BoardSnapshot, ClaimRow, InboxRow, SessionRow } from "./board-model.js";

export type Tab = "sessions" | "inbox" | "claims";

export const tabs: readonly Tab[] = ["sessions", "inbox", "claims"];

interface ListRow {
  key: string;
  text: string;
}

// A label or path column wide enough for most; a longer one is cut there, the pane shows it whole.
const labelColumnsMax = 24;
const keyColumnsMax = 48;
const gap = "  ";

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

const you = (self: boolean) => (self ? " (you)" : "");

/** A session's unread count; one the listing's bound cut reads "at least". */
export const unreadCount = (row: SessionRow): string =>
  `${row.unreadAtLeast === true ? "at least " : ""}${row.unread.toLocaleString("en-US")}`;

/** A session as the board names it: its label, with Pi's name before it when the two differ. */
export function shownName(row: SessionRow): string {
  return labelWithName(row.label, row.state === "mail only" ? undefined : row.name, oneLine);
}

/** What the mailbox says of it: `busy`, `idle, waiting on lead`, `stopped`; "" when unknown. */
export function mailWords(row: SessionRow): string {
  const mail = row.mail;
  if (mail === undefined) return "";
  const state = mail.stopped ? "stopped" : mail.state;
  return mail.waitingOn === undefined ? state : `${state}, waiting on ${oneLine(mail.waitingOn)}`;
}

function sessionCells(row: SessionRow): string[] {
  const label = `${shownName(row)}${you(row.self)}`;
  if (row.state === "mail only") return [label, row.state, mailWords(row), "", "", ""];
  const listening = row.state === "gone" ? "" : row.listening;
  return [
    label,
    row.state,
    mailWords(row),
    listening,
    `${unreadCount(row)} unread`,
    plural(row.claims.length, "claim"),
  ];
}

function inboxCells(row: InboxRow): string[] {
  if (row.type === "unreadable") return ["unreadable file", "", "", oneLine(row.file)];
  const paths = row.paths.length === 0 ? "" : `[${plural(row.paths.length, "path")}]`;
  return [oneLine(row.fromLabel), row.kind, paths, oneLine(row.text)];
}

/** What else a claim row says: taken by an edit, offered in a standing handoff. */
export function claimNotes(row: ClaimRow): string[] {
  const notes: string[] = [];
  if (row.observed) notes.push("observed");
  if (row.offeredTo !== undefined) notes.push(`offered to ${oneLine(row.offeredTo.label)}`);
  return notes;
}

const claimCells = (row: ClaimRow): string[] => [
  oneLine(row.key),
  `${oneLine(row.ownerLabel)}${you(row.own)}`,
  claimNotes(row).join(", "),
];

/** Cells in columns as wide as their widest cell (by display width, up to its cap); a column empty
 * in every row takes no room; the last cell is left as it is. */
function aligned(rows: readonly string[][], caps: readonly number[]): string[] {
  const columns = Math.max(0, ...rows.map((cells) => cells.length));
  const widths = Array.from({ length: columns - 1 }, (_, column) =>
    Math.min(
      caps[column] ?? Number.MAX_SAFE_INTEGER,
      Math.max(0, ...rows.map((cells) => displayWidth(cells[column] ?? ""))),
    ),
  );
  return rows.map((cells) => {
    const padded = widths.flatMap((width, column) => (width === 0 ? [] : [fitToWidth(cells[column] ?? "", width)]));
    return [...padded, cells[columns - 1] ?? ""].join(gap).trimEnd();
  });
}

function rowsOf<T>(items: readonly T[], keyOf: (item: T) => string, cells: (item: T) => string[], caps: number[]) {
  const texts = aligned(items.map(cells), caps);
  return items.map((item, index) => ({ key: keyOf(item), text: texts[index] ?? "" }));
}

/** How many rows a tab has: nothing is drawn to count them. */
export function rowCount(snapshot: BoardSnapshot, tab: Tab): number {
  switch (tab) {
    case "sessions":
      return visibleSessions(snapshot).length;
    case "inbox":
      return snapshot.inbox.length;
    case "claims":
      return snapshot.claims.length;
    default: {
      const never: never = tab;
      return never;
    }
  }
}

/** The keys of a tab's rows in order: what keeps a selection on its row. */
export function rowKeys(snapshot: BoardSnapshot, tab: Tab): string[] {
  switch (tab) {
    case "sessions":
      return visibleSessions(snapshot).map((row) => row.id);
    case "inbox":
      return snapshot.inbox.map(inboxKey);
    case "claims":
      return snapshot.claims.map((row) => row.key);
    default: {
      const never: never = tab;
      return never;
    }
  }
}

/** The rows `top` to `top + count` of one tab, in the order the snapshot gives them, their columns
 * lined up among themselves. Only these are drawn: 20,000 claims cost one screen of text. */
export function listRows(snapshot: BoardSnapshot, tab: Tab, top = 0, count = Number.MAX_SAFE_INTEGER): ListRow[] {
  const end = top + count;
  switch (tab) {
    case "sessions":
      return rowsOf(visibleSessions(snapshot).slice(top, end), (row) => row.id, sessionCells, [labelColumnsMax]);
    case "inbox":
      return rowsOf(snapshot.inbox.slice(top, end), inboxKey, inboxCells, [labelColumnsMax]);
    case "claims":
      return rowsOf(snapshot.claims.slice(top, end), (row) => row.key, claimCells, [keyColumnsMax, labelColumnsMax]);
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
