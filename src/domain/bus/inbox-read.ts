// One bounded `inbox` read: oldest first, each body clipped, the whole read stopping
// before the row that would pass the budget, the rest named in one `… N more` line. Pure: the
// engine peeks, this plans, the engine consumes exactly the names it shows.
import type { InboxPeek, Unreadable } from "../../ports/bus/bus-store.js";
import { clipCodePoints, codePointCount } from "../shared/text/code-points.js";
import { msFromIso } from "../shared/text/iso-time.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import type { BusMessage } from "./bus-files.js";
import {
  duplicateWindowMs,
  handoffBodyCharsMax,
  inboxBodyCharsMax,
  inboxLimitDefault,
  inboxLimitMax,
  inboxReadCharsMax,
  labelCharsMax,
  pathShownCharsMax,
  pathsShownMax,
} from "./limits.js";

export interface InboxRow {
  /** The inbox file: consumed once shown. */
  name: string;
  message: BusMessage;
  /** `handoff from billing-core (<id>) · paths: src/api`, every peer-written field sanitized. */
  header: string;
  /** The body clipped (400 code points, 800 for a handoff); raw: the renderer sanitizes it. */
  body: string;
  clipped: boolean;
  /** What the row costs of the budget: header, a line break, the body as rendered (indented). */
  chars: number;
  /** How many messages the row stands for: the first and the duplicates folded into it (see
   * duplicateWindowMs), each consumed with it. */
  repeats: number;
  /** The message ids of the duplicates folded in: shown (as the count) and consumed with the row. */
  foldedIds: string[];
}

interface InboxReadPlan {
  rows: InboxRow[];
  /** Exactly the files shown: nothing unseen is ever deleted. */
  consume: string[];
  /** Files left behind that a later read would return: `… N more`, shown when above 0. */
  more: number;
  /** Mail this build cannot read, as far as the peek reached: named, left on disk for the TTL. */
  unreadable: Unreadable[];
}

/** The limit a read uses: the default when none is given, clamped to 1..inboxLimitMax. */
export function inboxLimit(requested: number | undefined): number {
  if (requested === undefined || !Number.isFinite(requested)) return inboxLimitDefault;
  return Math.min(inboxLimitMax, Math.max(1, Math.floor(requested)));
}

function bodyCharsMax(message: BusMessage): number {
  return message.kind === "handoff" ? handoffBodyCharsMax : inboxBodyCharsMax;
}

/** A message's paths as every surface names them: at most pathsShownMax, each cut, the rest
 * counted (a message may carry 64 paths of 4,096 characters). Sanitized. */
export function shownPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, pathsShownMax).map((path) => sanitizeField(path, pathShownCharsMax));
  const rest = paths.length - shown.length;
  return `${shown.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`;
}

/** What a row says of a message's paths: a handoff's are the claims it offers, and how to take them. */
export function aboutPaths(message: Pick<BusMessage, "kind" | "paths" | "id">): string {
  if (message.paths.length === 0) return "";
  if (message.kind !== "handoff") return ` · paths: ${shownPaths(message.paths)}`;
  const id = sanitizeField(message.id, labelCharsMax);
  return ` · offers the claims on ${shownPaths(message.paths)}: take them with session({action:"accept", id:"${id}"})`;
}

/** The row's first line, as every surface prints it: the budget counts exactly this. */
export function inboxRowHeader(message: BusMessage, repeats = 1): string {
  const label = sanitizeField(message.fromLabel, labelCharsMax);
  const from = sanitizeField(message.from, labelCharsMax);
  return `${message.kind} from ${label} (${from})${aboutPaths(message)}${repeatMark(repeats)}`;
}

/** What a folded row adds to its header: how many times the same message came. */
export function repeatMark(repeats: number): string {
  return repeats > 1 ? ` · sent ${repeats} times within ${duplicateWindowMs / 1000} s` : "";
}

/** Whether `later` says again what `first` said: the same sender, kind, text and paths, sent within
 * duplicateWindowMs of it (by the sender's own clock, which stamped both). A handoff never is: each
 * offer stands alone. */
export function repeats(first: BusMessage, later: BusMessage): boolean {
  if (first.kind === "handoff" || later.kind !== first.kind || later.from !== first.from) return false;
  if (later.text !== first.text || later.paths.join("\0") !== first.paths.join("\0")) return false;
  const [from, to] = [msFromIso(first.sentAt), msFromIso(later.sentAt)];
  if (from === undefined || to === undefined) return false;
  return to - from >= 0 && to - from <= duplicateWindowMs;
}

/** What a body costs as the model reads it: each line indented by two, a clipped one ends in " …". */
function renderedChars(body: string, clipped: boolean): number {
  const lines = body.split(/\r\n|\n|\r/).length;
  return codePointCount(body) + 2 * lines + (clipped ? 2 : 0);
}

function rowOf(name: string, message: BusMessage): InboxRow {
  const header = inboxRowHeader(message);
  const body = clipCodePoints(message.text, bodyCharsMax(message));
  return {
    name,
    message,
    header,
    body: body.text,
    clipped: body.clipped,
    chars: codePointCount(header) + 1 + renderedChars(body.text, body.clipped),
    repeats: 1,
    foldedIds: [],
  };
}

/** Folds `message` into a row it repeats: the row counts one more and its file is consumed with
 * it. Returns what the row's header grew by, or undefined when it repeats no row. */
function foldInto(rows: InboxRow[], message: BusMessage, name: string, consume: string[]): number | undefined {
  const row = rows.find((r) => repeats(r.message, message));
  if (row === undefined) return undefined;
  const before = codePointCount(repeatMark(row.repeats));
  row.repeats++;
  row.foldedIds.push(message.id);
  const grown = codePointCount(repeatMark(row.repeats)) - before;
  row.chars += grown;
  consume.push(name);
  return grown;
}

/** `peek` is the front of the inbox, oldest first; at most `limit` messages are shown, and the
 * first always is, however long. */
export function planInboxRead(peek: InboxPeek, limit: number): InboxReadPlan {
  const rows: InboxRow[] = [];
  const unreadable: Unreadable[] = [];
  const consume: string[] = [];
  let chars = 0;
  let stopped = false;
  for (const entry of peek.entries) {
    if (entry.kind === "unreadable") {
      unreadable.push({ name: entry.name, reason: entry.reason, mtimeMs: entry.mtimeMs });
      continue;
    }
    if (stopped) continue;
    // A repeat costs its row the few characters of its count, never a row of the limit.
    const grown = foldInto(rows, entry.message, entry.name, consume);
    if (grown !== undefined) {
      chars += grown;
      continue;
    }
    if (rows.length >= limit) continue;
    const row = rowOf(entry.name, entry.message);
    // The line break that sets a row apart from the one before it counts too.
    const cost = rows.length > 0 ? row.chars + 1 : row.chars;
    if (rows.length > 0 && chars + cost > inboxReadCharsMax) {
      stopped = true;
      continue;
    }
    rows.push(row);
    consume.push(row.name);
    chars += cost;
  }
  const more = Math.max(0, peek.files - consume.length - unreadable.length);
  return { rows, consume, more, unreadable };
}
