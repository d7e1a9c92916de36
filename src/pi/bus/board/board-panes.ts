// The pane over one row: every field of it, wrapped to the width, and a message's text as prose
// from the top. Lines are plain text (the view styles the title); peer strings are sanitized here.

import { observedLapseMs } from "../../../domain/bus/limits.js";
import { formatAge } from "../../../domain/shared/text/age.js";
import { stripUnsafe, wrapToWidth } from "../../shared/display-width.js";
import type { BoardSnapshot, ClaimRow, MessageRow, SessionRow, UnreadableRow } from "./board-model.js";
import { inboxKey, mailWords, oneLine, shownName, type Tab, unreadCount, visibleSessions } from "./board-rows.js";

interface Pane {
  title: string;
  lines: string[];
}

// Field names take this many columns; narrower screens put the value after "name: " instead.
const nameColumns = 11;
const hangingWidthMin = 30;

function field(name: string, values: readonly string[], width: number): string[] {
  const shown = values.length === 0 ? ["none"] : values.map(oneLine);
  if (width < hangingWidthMin) return shown.flatMap((value) => wrapToWidth(`${name}: ${value}`, width));
  const indent = " ".repeat(nameColumns);
  return shown.flatMap((value, index) =>
    wrapToWidth(value, width - nameColumns).map((piece, line) =>
      index === 0 && line === 0 ? name.padEnd(nameColumns) + piece : indent + piece,
    ),
  );
}

function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  return Number.isNaN(date.getTime()) ? "unknown" : date.toISOString();
}

function sessionPane(row: SessionRow, width: number): Pane {
  const observed = new Set(row.observed);
  return {
    title: `Session ${shownName(row)}${row.self ? " (you)" : ""}`,
    lines: [
      ...field(row.state === "mail only" ? "name" : "label", [row.label], width),
      ...(row.name === undefined || row.state === "mail only" ? [] : field("Pi name", [row.name], width)),
      ...field("id", [row.id], width),
      ...field("state", [row.state], width),
      ...(row.mail === undefined ? [] : field("mail", [mailWords(row)], width)),
      ...field("listening", [row.listening], width),
      ...field("unread", [unreadCount(row)], width),
      ...field("heartbeat", [formatAge(row.heartbeatAgeMs)], width),
      ...field("cwd", [row.cwd], width),
      ...field(
        "claims",
        row.claims.map((key) => (observed.has(key) ? `${key} (observed)` : key)),
        width,
      ),
    ],
  };
}

/** The arrival shown: never before the send time. The mtime comes from the file system's coarse
 * clock, which lags the sender's clock by a few milliseconds, so a message read back at once
 * seemed to arrive before it was sent. */
function shownArrival(row: MessageRow): number {
  const sentMs = Date.parse(row.sentAt);
  return Number.isNaN(sentMs) ? row.arrivalMs : Math.max(row.arrivalMs, sentMs);
}

function messagePane(row: MessageRow, width: number): Pane {
  // Each line of the text on its own, so a peer's newline stays a line break and never a control.
  const prose = row.text.split(/\r\n|\r|\n/).flatMap((line) => wrapToWidth(stripUnsafe(line), width));
  return {
    title: `${row.kind} from ${oneLine(row.fromLabel)}`,
    lines: [
      ...field("from", [`${row.fromLabel} (${row.fromId})`], width),
      ...field("kind", [row.kind], width),
      ...field("sent", [row.sentAt], width),
      ...field("arrived", [formatTime(shownArrival(row))], width),
      ...field("paths", row.paths, width),
      "",
      ...prose,
    ],
  };
}

function unreadablePane(row: UnreadableRow, width: number): Pane {
  const why = "This build cannot read this message file. It is left on disk, and the message TTL clears it.";
  return {
    title: "Unreadable message",
    lines: [...field("file", [row.file], width), "", ...wrapToWidth(why, width)],
  };
}

function claimPane(row: ClaimRow, width: number): Pane {
  const owner = oneLine(row.ownerLabel);
  const note = row.own ? "Yours: x releases it." : `Held by ${owner}; only its owner releases it.`;
  const lapse = `Taken by an edit, not asked for: it lapses ${observedLapseMs / 60_000} minutes after ${row.own ? "this session's" : `${owner}'s`} last edit of it, and a claim of it makes it explicit.`;
  const offered =
    row.offeredTo === undefined
      ? []
      : [
          `Offered to ${oneLine(row.offeredTo.label)} in a handoff: it moves when they accept, and stays ${owner}'s until then.`,
        ];
  return {
    title: `Claim ${oneLine(row.key)}`,
    lines: [
      ...field("path", [row.key], width),
      ...field("owner", [`${row.ownerLabel}${row.own ? " (you)" : ""}`], width),
      ...field("owner id", [row.ownerId], width),
      ...field("kind", [row.observed ? "observed" : "explicit"], width),
      ...(row.offeredTo === undefined
        ? []
        : field("offered to", [`${row.offeredTo.label} (${row.offeredTo.id})`], width)),
      "",
      ...wrapToWidth(note, width),
      ...(row.observed ? wrapToWidth(lapse, width) : []),
      ...offered.flatMap((line) => wrapToWidth(line, width)),
    ],
  };
}

/** The pane of the row `key` of `tab`, or undefined once that row is gone from the snapshot. */
export function paneOf(snapshot: BoardSnapshot, tab: Tab, key: string, width: number): Pane | undefined {
  switch (tab) {
    case "sessions": {
      const row = visibleSessions(snapshot).find((session) => session.id === key);
      return row === undefined ? undefined : sessionPane(row, width);
    }
    case "inbox": {
      const row = snapshot.inbox.find((message) => inboxKey(message) === key);
      if (row === undefined) return undefined;
      return row.type === "message" ? messagePane(row, width) : unreadablePane(row, width);
    }
    case "claims": {
      const row = snapshot.claims.find((claim) => claim.key === key);
      return row === undefined ? undefined : claimPane(row, width);
    }
    default: {
      const never: never = tab;
      return never;
    }
  }
}
