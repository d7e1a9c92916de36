// Lines of text as a TUI component, wrapped to the width Pi gives, without importing pi-tui at run
// time (the bundle imports only Node built-ins: see line-component.ts). Text is wrapped as plain
// text and styled after, so a style never breaks across a wrap; columns are measured as terminals
// draw them (display-width.ts), since Pi stops drawing on a line wider than the screen.
import { displayWidth, wrapToWidth } from "./display-width.js";

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

function pieces(line: StyledLine, width: number): string[] {
  if (line.oneLine !== true) return wrapToWidth(line.text, width);
  const wrapped = wrapToWidth(line.text, Math.max(1, width - 1));
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
          const fill = " ".repeat(Math.max(0, inner - displayWidth(piece)));
          const drawn = `${side}${line.style(piece)}${fill}${side}`;
          return options.background === undefined ? drawn : options.background(drawn);
        }),
      );
    },
    invalidate() {},
  };
}
