// The mail notice: what a listening session is told of new bus mail, as a wake turn or with the next
// prompt. It previews and consumes nothing; `session inbox` reads the mail. A handoff assigns work,
// so a notice that carries one is headlined as that work.

import { aboutPaths, repeatMark } from "../../domain/bus/inbox-read.js";
import {
  handoffBodyCharsMax,
  inboxReadCharsMax,
  labelCharsMax,
  noticePreviewCharsMax,
} from "../../domain/bus/limits.js";
import { firstLine } from "../../domain/shared/text/first-line.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import type { MailNotice } from "../../ports/bus/bus-host.js";
import { indentBody } from "./texts.js";

export { noticeType } from "./registrations.js";

interface NoticeDetails {
  delivery: MailNotice["delivery"];
  seq: number;
  /** The message ids it announced: stale once none of them is in the inbox any more. */
  ids: string[];
  headline: string;
  /** The collapsed line: the first sender's label and the first line of its text. */
  preview?: string | undefined;
}

const label = (text: string) => sanitizeField(text, labelCharsMax);
/** A preview is at most a handoff's 800 characters; one line of it can be no longer. */
const noticeLineCharsMax = handoffBodyCharsMax;
/** The collapsed line: a label, ": ", a line of the preview and "(and N more)". */
const previewLineCharsMax = labelCharsMax + noticePreviewCharsMax + 32;

function headline(notice: MailNotice): string {
  const count = notice.messages.length;
  if (notice.handoffs > 0) {
    const rest = count - notice.handoffs;
    const others = rest > 0 ? ` and ${rest} other message${rest === 1 ? "" : "s"}` : "";
    return `${notice.handoffs} handoff${notice.handoffs === 1 ? "" : "s"}${others} on the bus`;
  }
  return `${count} new message${count === 1 ? "" : "s"} on the bus`;
}

function hint(notice: MailNotice): string {
  const read = 'session({action:"inbox"})';
  if (notice.handoffs > 0) {
    return `A handoff assigns work, and the work is yours: read it with ${read}, record the plan, and start.`;
  }
  return `Read them with ${read} when they matter to your work; this notice consumed nothing.`;
}

/** The ids a notice names (its senders), for the shortener that keeps them apart. */
export const noticeIds = (notice: MailNotice) => notice.messages.map((m) => m.from);

/** `lead: the first line` of the first message, and how many more came with it. */
function collapsedLine(notice: MailNotice): string | undefined {
  const first = notice.messages[0];
  if (first === undefined) return undefined;
  const line = firstLine(first.preview);
  const rest = notice.messages.length - 1;
  const more = rest > 0 ? ` (and ${rest} more)` : "";
  return `${label(first.fromLabel)}: ${sanitizeField(line, noticePreviewCharsMax)}${more}`;
}

/** Why mail at the hop limit did not wake the session: said to the model, so it does not answer
 * back into the loop it stopped. */
function hopLine(notice: MailNotice): string {
  const at = notice.atHopLimit;
  if (at === undefined) return "";
  return `Some of this mail came ${at.hops} hops into a chain of sessions waking each other (the limit is ${at.limit}), so it did not wake this session. Answer it only if the person asks you to.\n`;
}

export function noticeContent(
  notice: MailNotice,
  short: (id: string) => string = (id) => id,
): { content: string; details: NoticeDetails } {
  const title = headline(notice);
  const rows: string[] = [];
  let chars = 0;
  for (const m of notice.messages) {
    const about = aboutPaths(m);
    const body = indentBody(m.preview, noticeLineCharsMax);
    const row = `${m.kind} from ${label(m.fromLabel)} (${label(short(m.from))})${about}${repeatMark(m.repeats ?? 1)}\n${body}${m.clipped ? " …" : ""}`;
    // The same budget as an inbox read: a burst of long previews must not flood the context.
    if (rows.length > 0 && chars + row.length > inboxReadCharsMax) break;
    rows.push(row);
    chars += row.length;
  }
  const rest = notice.messages.length - rows.length;
  if (rest > 0) rows.push(`… and ${rest} more`);
  return {
    content: `[session-bus] ${title}.\n${rows.join("\n")}\n${hopLine(notice)}${hint(notice)}`,
    details: {
      delivery: notice.delivery,
      seq: notice.seq,
      ids: notice.messages.flatMap((m) => [m.id, ...(m.foldedIds ?? [])]),
      headline: title,
      preview: collapsedLine(notice),
    },
  };
}

/** A notice's details as stored in the session (any shape may come back from a session file). */
export function readNoticeDetails(details: unknown): NoticeDetails | undefined {
  if (typeof details !== "object" || details === null) return undefined;
  const d = details as Partial<NoticeDetails>;
  if (!Array.isArray(d.ids) || !d.ids.every((id) => typeof id === "string")) return undefined;
  return {
    delivery: d.delivery === "wake" ? "wake" : "next-turn",
    seq: typeof d.seq === "number" ? d.seq : 0,
    ids: d.ids,
    headline: typeof d.headline === "string" ? d.headline : "bus mail",
    // Read back from a session file: sanitized again, and no longer than this build writes it.
    preview: typeof d.preview === "string" ? sanitizeField(d.preview, previewLineCharsMax) : undefined,
  };
}
