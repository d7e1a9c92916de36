// Terminal columns without a run-time pi-tui import (the bundle imports only Node built-ins). The
// measure errs wide, never narrow: a line it calls `width` columns never wraps in the terminal.

// Escape sequences: CSI, OSC (to BEL or ST, or the end), DCS/SOS/PM/APC strings, and two-byte ESC forms.
const escapeSource = String.raw`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]*[0-~])`;
const escapeAt = new RegExp(escapeSource, "y");
const escapes = new RegExp(escapeSource, "g");

// What a peer may not put on the screen: controls (C0, DEL, C1), line and paragraph separators,
// format characters (bidi controls, zero-width joiners), other invisibles, and lone surrogates.
const unsafe = /[\p{Cc}\p{Zl}\p{Zp}\p{Cf}\p{Default_Ignorable_Code_Point}\p{Cs}]/gu;

// Marks that draw nothing, less the ones terminals give a cell (as pi-tui measures them).
const zeroWidth = /^[\p{Mn}\p{Me}\p{Cf}\p{Cc}\p{Default_Ignorable_Code_Point}]$/u;
const spacingMarks = /^[\u065F\u0F7F\u102B\u102C\u1031\u1033-\u1035\u1038\u103A-\u103E]$/u;
const emojiPresentation = /^\p{Emoji_Presentation}$/u;

// East Asian Wide and Fullwidth blocks beyond the emoji (those come from Emoji_Presentation).
// Gaps inside a block are counted wide too: erring wide only costs a column.
const wideRanges: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2329, 0x232a],
  [0x2630, 0x2637],
  [0x268a, 0x268f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x16fe0, 0x18dff],
  [0x1aff0, 0x1b2ff],
  [0x1d300, 0x1d376],
  [0x1f1e6, 0x1f1ff],
  [0x1f200, 0x1f2ff],
  [0x20000, 0x3fffd],
];

/** Columns one code point takes: 0 for a mark or an invisible, 2 for a wide one, else 1. */
function charWidth(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0x20 && code < 0x7f) return 1;
  if (spacingMarks.test(char)) return 1;
  if (zeroWidth.test(char)) return 0;
  if (emojiPresentation.test(char)) return 2;
  return wideRanges.some(([low, high]) => code >= low && code <= high) ? 2 : 1;
}

const spaces = /\r\n|[\t\n\v\f\r\x85\u2028\u2029]/g;

/** Text a peer wrote, made safe to draw on one line: escape sequences and unsafe characters
 * removed, tabs and line breaks turned into spaces (split multi-line text first to keep its lines). */
export function stripUnsafe(text: string): string {
  return text.replace(escapes, "").replace(spaces, " ").replace(unsafe, "");
}

/** Columns a line takes in a terminal; escape sequences (our own styling) take none. */
export function displayWidth(line: string): number {
  let columns = 0;
  for (let i = 0; i < line.length; ) {
    escapeAt.lastIndex = i;
    const sequence = escapeAt.exec(line);
    if (sequence !== null) {
      i += sequence[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i) ?? 0);
    columns += charWidth(char);
    i += char.length;
  }
  return columns;
}

/** The line cut to at most `width` columns, ending in "…" when cut. Cuts between code points and
 * never inside a wide character; escape sequences are kept, and a cut styled line ends with a reset. */
export function cutToWidth(line: string, width: number): string {
  if (displayWidth(line) <= width) return line;
  if (width <= 0) return "";
  const room = width - 1;
  let columns = 0;
  let out = "";
  let styled = false;
  for (let i = 0; i < line.length; ) {
    escapeAt.lastIndex = i;
    const sequence = escapeAt.exec(line);
    if (sequence !== null) {
      out += sequence[0];
      styled = true;
      i += sequence[0].length;
      continue;
    }
    const char = String.fromCodePoint(line.codePointAt(i) ?? 0);
    const w = charWidth(char);
    if (columns + w > room) break;
    out += char;
    columns += w;
    i += char.length;
  }
  // A style cut off before its end would run on into the "…" and the next line.
  return `${out}${styled ? "\x1b[0m" : ""}…`;
}

/** The line cut to `width` columns and padded with spaces to exactly that many. */
export function fitToWidth(line: string, width: number): string {
  const cut = cutToWidth(line, width);
  return cut + " ".repeat(Math.max(0, width - displayWidth(cut)));
}

const trailingSpaces = / +$/;

/** Plain text (no escapes, no newlines) wrapped to `width` columns: at the last space that fits,
 * else inside a word, never inside a character. */
export function wrapToWidth(text: string, width: number): string[] {
  const limit = Math.max(1, width);
  const out: string[] = [];
  let line: string[] = [];
  let columns = 0;
  for (const char of text) {
    const w = charWidth(char);
    if (char === " " && columns + w > limit) {
      // A space past the edge is the break itself: the full line stays whole.
      out.push(line.join("").replace(trailingSpaces, ""));
      line = [];
      columns = 0;
      continue;
    }
    // Each pass moves at least one character out of `line`, so this ends.
    while (columns + w > limit && line.length > 0) {
      const space = line.lastIndexOf(" ");
      const cut = space > 0 ? space : line.length;
      out.push(line.slice(0, cut).join("").replace(trailingSpaces, ""));
      line = line.slice(space > 0 ? cut + 1 : cut);
      columns = displayWidth(line.join(""));
    }
    line.push(char);
    columns += w;
  }
  out.push(line.join("").replace(trailingSpaces, ""));
  return out;
}
