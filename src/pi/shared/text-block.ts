// Lines of text as a TUI component, wrapped to the width Pi gives, without importing pi-tui at run
// time (the bundle imports only Node built-ins: see line-component.ts). Text is wrapped as plain
// text and styled after, so a style never breaks across a wrap.

export interface StyledLine {
  /** Plain text: no escape sequences (callers sanitize what a peer wrote). */
  text: string;
  style: (text: string) => string;
  /** Shown on one line, cut with "…", instead of wrapped. */
  oneLine?: boolean;
}

export interface BlockComponent {
  render(width: number): string[];
  invalidate(): void;
}

// East Asian wide and fullwidth ranges and the emoji blocks: two columns each, as terminals draw them.
const wide: ReadonlyArray<readonly [number, number]> = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe30, 0xfe4f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x1fa70, 0x1faff],
  [0x20000, 0x3fffd],
];

const combining = /\p{Mn}|\p{Me}/u;

/** Columns one character takes in a terminal: 0 for a combining mark, 2 for a wide one, else 1. */
function charColumns(char: string): number {
  if (combining.test(char)) return 0;
  const code = char.codePointAt(0) ?? 0;
  return wide.some(([low, high]) => code >= low && code <= high) ? 2 : 1;
}

export function textColumns(text: string): number {
  let columns = 0;
  for (const char of text) columns += charColumns(char);
  return columns;
}

/** Wraps one line of plain text to `width` columns, at the last space when there is one. */
export function wrapLine(text: string, width: number): string[] {
  const out: string[] = [];
  let chars: string[] = [];
  let columns = 0;
  for (const char of text) {
    const w = charColumns(char);
    // Each pass moves at least one character out, so this ends.
    while (columns + w > width && chars.length > 0) {
      const space = chars.lastIndexOf(" ");
      const cut = space > 0 ? space : chars.length;
      out.push(chars.slice(0, cut).join("").trimEnd());
      chars = chars.slice(space > 0 ? cut + 1 : cut);
      columns = textColumns(chars.join(""));
    }
    chars.push(char);
    columns += w;
  }
  out.push(chars.join("").trimEnd());
  return out;
}

function pieces(line: StyledLine, width: number): string[] {
  if (line.oneLine !== true) return wrapLine(line.text, width);
  const wrapped = wrapLine(line.text, Math.max(1, width - 1));
  return wrapped.length === 1 ? wrapped : [`${wrapped[0]}…`];
}

/** A block of lines, each wrapped, padded to the full width with `padX` spaces at each side, and
 * drawn on `background` when one is given (as Pi draws its own message boxes). */
export function blockComponent(
  lines: readonly StyledLine[],
  options: { padX: number; background?: (text: string) => string },
): BlockComponent {
  return {
    render(width) {
      const padX = Math.max(0, Math.min(options.padX, Math.floor((width - 1) / 2)));
      const inner = Math.max(1, width - 2 * padX);
      const side = " ".repeat(padX);
      return lines.flatMap((line) =>
        pieces(line, inner).map((piece) => {
          const fill = " ".repeat(Math.max(0, inner - textColumns(piece)));
          const drawn = `${side}${line.style(piece)}${fill}${side}`;
          return options.background === undefined ? drawn : options.background(drawn);
        }),
      );
    },
    invalidate() {},
  };
}
