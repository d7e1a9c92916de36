// How a tool's result looks in Pi's TUI, for every extension of this package: one summary line,
// all of it when expanded (Pi's expand key). Only the view changes: the model reads the whole result.
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { type BlockComponent, blockComponent } from "./text-block.js";

/** Longest summary line drawn; longer ones are cut (the TUI cuts to the width anyway). */
const summaryCharsMax = 512;
/** Longest line of a result drawn when expanded. */
const resultLineCharsMax = 32 * 1024;

/** The part of Pi's Theme the views use. */
export interface ViewTheme {
  fg(color: string, text: string): string;
  bg(color: string, text: string): string;
  bold(text: string): string;
}

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((c: unknown) =>
      typeof c === "object" && c !== null && "text" in c && typeof c.text === "string" ? c.text : "",
    )
    .join("\n");
}

/** Lines a peer may have written, safe to draw: no escape sequence or control reaches the terminal. */
export function safeLines(text: string): string[] {
  return text.split("\n").map((line) => sanitizeField(line, resultLineCharsMax));
}

/** A tool's result on one line, its summary (details.summary, else its first line); all of it
 * when expanded. A partial result (a waiting ask's progress) shows its summary. */
export function renderToolResult(
  result: { content: unknown; details?: unknown },
  options: { expanded: boolean; isPartial: boolean },
  theme: ViewTheme,
  context: { isError: boolean },
): BlockComponent {
  const details = (typeof result.details === "object" && result.details !== null ? result.details : {}) as {
    summary?: unknown;
  };
  const all = safeLines(textOf(result.content).trim());
  const color = context.isError ? "error" : options.isPartial ? "muted" : "toolOutput";
  const style = (s: string) => theme.fg(color, s);
  if (options.expanded && !options.isPartial)
    return blockComponent(
      all.map((text) => ({ text, style })),
      { padX: 0 },
    );
  const summary = typeof details.summary === "string" ? sanitizeField(details.summary, summaryCharsMax) : all[0];
  return blockComponent([{ text: summary ?? "", style, oneLine: true }], { padX: 0 });
}
