// How a bus notice looks in Pi's TUI: its headline, then its rows when expanded. The model still
// reads the whole notice.
import { type BlockComponent, blockComponent, type StyledLine } from "../shared/text-block.js";
import { safeLines, textOf, type ViewTheme } from "../shared/tool-view.js";
import { readNoticeDetails } from "./notice.js";

export function renderNotice(
  message: { content: unknown; details?: unknown },
  options: { expanded: boolean; outputPad: number },
  theme: ViewTheme,
): BlockComponent {
  const details = readNoticeDetails(message.details);
  const header = `bus · ${details?.headline ?? "mail"}`;
  const lines: StyledLine[] = [{ text: header, style: (s) => theme.fg("customMessageLabel", theme.bold(s)) }];
  const body = safeLines(textOf(message.content)).slice(1);
  const text = (s: string) => theme.fg("customMessageText", s);
  if (options.expanded) lines.push(...body.map((line) => ({ text: line, style: text })));
  else {
    // Collapsed: who wrote and what, not the row's header with its id (older notices have no preview).
    const first = details?.preview ?? body[0];
    if (first !== undefined) lines.push({ text: first, style: text, oneLine: true });
  }
  return blockComponent(lines, { padX: options.outputPad, background: (s) => theme.bg("customMessageBg", s) });
}
