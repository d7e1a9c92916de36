// What the model may read in one injected mail, checked from the text alone: only the from line and
// the end line start with `[mailbox]`, and the label's own lines hold no control, bidi or invisible
// character. Written without the code under test (no sanitizeField, no frameMail).
import { expect } from "vitest";

/** Every line break a reader may honour: Unicode's mandatory breaks. */
export const anyLineBreak = /\r\n|[\n\r\v\f\u0085\u2028\u2029]/;

/** What may sit unseen before a forged tag: blanks, controls, format characters (bidi, zero-width,
 * soft hyphen, BOM) and the fillers and selectors that render as nothing. */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: variation selectors are matched on purpose, one by one.
const unseenPrefix = /^[\s\p{Cf}\p{Cc}\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0]*/u;

/** Never allowed in a label line: C0 (tab and newline included), DEL, C1, U+2028/U+2029, bidi
 * controls, zero-width characters and every other format character. */
const labelUnsafe =
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]|\p{Cf}/u;

export function startsLikeLabel(line: string): boolean {
  return line.replace(unseenPrefix, "").startsWith("[mailbox]");
}

/** Lines (split on every break) that look like a `[mailbox]` line, by index. */
export function labelLikeLines(content: string): number[] {
  return content.split(anyLineBreak).flatMap((line, n) => (startsLikeLabel(line) ? [n] : []));
}

export function hasLabelUnsafe(line: string): boolean {
  return labelUnsafe.test(line);
}

/** Undoes the `> ` the engine puts before a body line's `[mailbox]`, so bodies compare as written. */
export function unquote(text: string): string {
  return text.replaceAll("> [mailbox]", "[mailbox]");
}

export interface FramedExpectation {
  /** The mail's id, as the kind line names it. */
  id: string;
  from: string;
  kind: "request" | "ask" | "message" | "reply";
  /** The status a reply's label shows. */
  status: "done" | "stopped" | "failed" | undefined;
  /** The body as written in the envelope. */
  body: string;
  cut: boolean;
  /** For a reply: per in_reply_to id, whether this session's sent copy is quoted. */
  quotes: readonly boolean[];
  /** Exact name and cwd for a sender we know; undefined for one whose record is hostile. */
  sender: { name: string; cwd: string | undefined } | undefined;
  /** A token of the envelope's file name: the cut line names its path. */
  token: string;
}

const fromTail = ", another Pi session on this machine.";
const endHead = "[mailbox] End of the mail from ";
const endTail = ". Text after this line is not part of it.";

function kindLinePrefix(e: FramedExpectation): string {
  switch (e.kind) {
    case "request":
      return `It sent you request ${e.id}. Your final answer this turn goes back to it automatically.`;
    case "ask":
      return `It is waiting for your answer to ask ${e.id}.`;
    case "message":
      return `It sent you message ${e.id}, which expects no answer.`;
    case "reply":
      return `This is its reply, status ${e.status}, to your request`;
    default: {
      const never: never = e.kind;
      return never;
    }
  }
}

/** The label's lines at the end of the text: [cut line], then for a reply "", "It answers:" and one
 * line per quoted id, then the end line. */
function tailLength(e: FramedExpectation): number {
  if (e.kind !== "reply") return 1;
  return e.quotes.length === 0 ? 2 : e.quotes.length + 3;
}

/** Checks one injected text against what was written; throws (through expect) on the first breach. */
export function expectFramed(content: string, e: FramedExpectation): void {
  const labelLike = labelLikeLines(content);
  const all = content.split(anyLineBreak);
  expect(labelLike, "only the first and last line start with [mailbox]").toEqual([0, all.length - 1]);

  const lines = content.split("\n");
  const tail = tailLength(e);
  const cutAt = e.cut ? lines.length - tail - 1 : undefined;
  const label = [0, 1, ...(cutAt === undefined ? [] : [cutAt]), ...range(lines.length - tail, lines.length)];
  for (const n of label) {
    expect(hasLabelUnsafe(lines[n] ?? ""), `label line ${n} holds a control, bidi or invisible character`).toBe(false);
  }
  const [from = "", kindLine = "", blank] = lines;
  const end = lines.at(-1) ?? "";
  expect(blank).toBe("");
  expect(from.startsWith("[mailbox] From ") && from.endsWith(fromTail), from).toBe(true);
  expect(end.startsWith(endHead) && end.endsWith(endTail), end).toBe(true);
  const name = from.slice("[mailbox] From ".length, from.lastIndexOf(` (${e.from}`));
  expect(from.lastIndexOf(` (${e.from}`), "the from line names the sender's full id").toBeGreaterThan(0);
  expect(end.slice(endHead.length, -endTail.length), "the end line names the same sender").toBe(name);
  if (e.sender !== undefined) {
    const where = e.sender.cwd === undefined ? "" : `, working in ${e.sender.cwd}`;
    expect(from).toBe(`[mailbox] From ${e.sender.name} (${e.from}${where})${fromTail}`);
  }
  expect(kindLine.startsWith(kindLinePrefix(e)), kindLine.slice(0, 200)).toBe(true);

  const bodyEnd = cutAt ?? lines.length - tail;
  const shown = lines.slice(3, bodyEnd).join("\n");
  if (e.cut) {
    const cutLine = lines[cutAt ?? 0] ?? "";
    expect(cutLine.startsWith("[The body was cut at 32 KiB; the whole envelope is at ")).toBe(true);
    expect(cutLine.endsWith(".]") && cutLine.includes(e.token), cutLine.slice(0, 300)).toBe(true);
    expect(Buffer.byteLength(unquote(shown)), "the injected body is at most 32 KiB").toBeLessThanOrEqual(32 * 1024);
    expect(unquote(e.body).startsWith(unquote(shown)), "the injected body is a prefix of the body").toBe(true);
  } else {
    expect(unquote(shown)).toBe(unquote(e.body));
  }
  if (e.kind === "reply") expectQuotes(lines.slice(lines.length - tail, -1), e.quotes);
}

function expectQuotes(tail: readonly string[], quotes: readonly boolean[]): void {
  expect(tail[0]).toBe("");
  if (quotes.length === 0) return;
  expect(tail[1]).toBe("It answers:");
  const items = tail.slice(2);
  expect(items).toHaveLength(quotes.length);
  items.forEach((line, n) => {
    if (quotes[n] === true) expect(line.startsWith("- request "), line.slice(0, 200)).toBe(true);
    else expect(line.startsWith("- ") && line.endsWith(" (this session kept no copy)"), line.slice(0, 200)).toBe(true);
  });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}
