// How mail and the mail tools look in Pi's TUI: compact for a person, the rest on demand (Pi's
// expand key, app.tools.expand). Only the view changes: the model still reads a message's whole
// framed content and each tool's whole result.

import { shortId } from "../../domain/mail/address.js";
import { readFrame } from "../../domain/mail/mail-view.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { lineComponent } from "../shared/line-component.js";
import { type BlockComponent, blockComponent, type StyledLine } from "../shared/text-block.js";
import { safeLines, textOf, type ViewTheme } from "../shared/tool-view.js";
import { expandHint, mailHeader } from "./tui-texts.js";

/** The part of Pi's render options the views use: whether expanded, and the expand key's text. */
interface ViewOptions {
  expanded: boolean;
  keyText(keybinding: string): string;
}

const expandKey = "app.tools.expand";

function hintLine(options: ViewOptions, theme: ViewTheme, hidden: number): StyledLine {
  const key = options.keyText(expandKey);
  const text = `${key === "" ? "expand" : key} for ${expandHint(hidden)}`;
  return { text, style: (s) => theme.fg("dim", s), oneLine: true };
}

/** Injected mail: a header (kind, sender, status) and the body's first line; the body when expanded. */
export function renderMail(
  message: { content: unknown; details?: unknown },
  options: ViewOptions & { outputPad: number },
  theme: ViewTheme,
): BlockComponent {
  const details = (typeof message.details === "object" && message.details !== null ? message.details : {}) as {
    kind?: unknown;
    from?: unknown;
  };
  const view = readFrame(textOf(message.content));
  const from = typeof details.from === "string" ? shortId(details.from) : "another session";
  const header = mailHeader(typeof details.kind === "string" ? details.kind : "", view.sender ?? from, view.status);
  const body = safeLines(view.body.replace(/^\n+|\n+$/g, ""));
  const text = (s: string) => theme.fg("customMessageText", s);
  const lines: StyledLine[] = [{ text: header, style: (s) => theme.fg("customMessageLabel", theme.bold(s)) }];
  if (options.expanded) lines.push(...body.map((line) => ({ text: line, style: text })));
  else {
    const first = body.findIndex((line) => line.trim() !== "");
    if (first !== -1) lines.push({ text: body[first]!, style: text, oneLine: true });
    if (body.length > first + 1 || first === -1) lines.push(hintLine(options, theme, body.length - 1));
  }
  return blockComponent(lines, { padX: options.outputPad, background: (s) => theme.bg("customMessageBg", s) });
}

function short(text: string, max: number): string {
  const line = sanitizeField(text.replace(/\s+/g, " ").trim(), max);
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** A tool call on one line: the tool, whom it addresses, and the start of the text. */
export function renderToolCall(name: string) {
  return (args: { to?: string; ask?: string; message?: string }, theme: ViewTheme) => {
    const target = short(args.to ?? args.ask ?? "", 80);
    const text = args.message !== undefined ? ` ${theme.fg("dim", `"${short(args.message, 60)}"`)}` : "";
    return lineComponent(`${theme.fg("toolTitle", theme.bold(name))} ${theme.fg("accent", target)}${text}`);
  };
}
