// Output for people and for scripts: aligned columns, relative times, colour only on a terminal
// without NO_COLOR, and one JSON document (or one per line) for `--json`.
import { sanitizeField } from "../domain/shared/text/sanitize.js";

/** What a peer could have written, made safe for one terminal cell: control characters become
 * spaces (no escape sequence reaches the terminal), cut at `max` characters. */
export const cell = (value: string, max = 120) => sanitizeField(value, max);

/** `12s ago`, `3m ago`, `2h ago`, `4d ago`; `now` for under a second, `in 5s` for a time ahead. */
export function ago(ms: number | undefined, nowMs: number): string {
  if (ms === undefined) return "?";
  const delta = nowMs - ms;
  const words = (d: number) => {
    const s = Math.floor(d / 1000);
    if (s < 60) return `${s}s`;
    if (s < 3600) return `${Math.floor(s / 60)}m`;
    if (s < 86_400) return `${Math.floor(s / 3600)}h`;
    return `${Math.floor(s / 86_400)}d`;
  };
  if (Math.abs(delta) < 1000) return "now";
  return delta > 0 ? `${words(delta)} ago` : `in ${words(-delta)}`;
}

/** A path under the home folder as `~/…`. */
export function homePath(path: string, home: string): string {
  if (home === "" || home === "/") return path;
  if (path === home) return "~";
  return path.startsWith(`${home}/`) ? `~${path.slice(home.length)}` : path;
}

const styles = { bold: [1, 22], dim: [2, 22], red: [31, 39], green: [32, 39], yellow: [33, 39] } as const;
type Style = keyof typeof styles;

function paint(color: boolean, style: Style, text: string): string {
  if (!color || text === "") return text;
  const [on, off] = styles[style];
  return `\u001b[${on}m${text}\u001b[${off}m`;
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart; the last column
 * is not padded. `styleOf` colours a cell after it is padded (escape codes take no width). */
export function table(
  header: readonly string[],
  rows: readonly (readonly string[])[],
  options: { color: boolean; styleOf?: (row: number, column: number) => Style | undefined },
): string {
  const widths = header.map((h, i) => Math.max(width(h), ...rows.map((r) => width(r[i] ?? ""))));
  const line = (cells: readonly string[], style: (column: number) => Style | undefined) =>
    cells
      .map((c, i) => {
        const padded = i === cells.length - 1 ? c : c + " ".repeat(widths[i]! - width(c));
        const s = style(i);
        return s === undefined ? padded : paint(options.color, s, padded);
      })
      .join("  ")
      .trimEnd();
  const head = line(header, () => "bold");
  const body = rows.map((r, row) => line(r, (column) => options.styleOf?.(row, column)));
  return `${[head, ...body].join("\n")}\n`;
}

/** Code points, which is what a terminal shows for the text here (names, ids, paths). */
const width = (text: string) => [...text].length;

export const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
export const jsonLine = (value: unknown) => `${JSON.stringify(value)}\n`;
