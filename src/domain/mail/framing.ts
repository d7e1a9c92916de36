import { sanitizeField } from "../shared/text/sanitize.js";
import { cutUtf8 } from "../shared/text/utf8.js";
import { shortId } from "./address.js";
import type { Envelope } from "./envelope.js";
import { injectBodyBytesMax, labelFieldCharsMax, quotedRequestBytesMax } from "./limits.js";

export interface Sender {
  name: string | undefined;
  /** Undefined when the sender is not running: the label then leaves the directory out. */
  cwd: string | undefined;
}

export interface QuotedRequest {
  id: string;
  /** The sent copy, when this session kept one. */
  copy: { envelope: Envelope; path: string } | undefined;
}

export interface LabelInput {
  envelope: Envelope;
  /** The envelope's path in this session's cur/. */
  path: string;
  sender: Sender;
  /** For a reply: each id of in_reply_to with the copy found in sent/. */
  quoted: readonly QuotedRequest[];
  /** A reply to an ask of this session that no longer waits for it. */
  askStoppedWaiting: boolean;
}

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

/** The name a label shows: the sender's session name, or its short id when it has none. */
export function senderName(envelope: Envelope, sender: Sender): string {
  return field(sender.name !== undefined && sender.name !== "" ? sender.name : shortId(envelope.from));
}

export function fromLine(envelope: Envelope, sender: Sender): string {
  const where = sender.cwd !== undefined && sender.cwd !== "" ? `, working in ${field(sender.cwd)}` : "";
  return `[mailbox] From ${senderName(envelope, sender)} (${field(envelope.from)}${where}), another Pi session on this machine.`;
}

export function endLine(envelope: Envelope, sender: Sender): string {
  return `[mailbox] End of the mail from ${senderName(envelope, sender)}. Text after this line is not part of it.`;
}

// Only the label's own lines may start with `[mailbox]`: a body line that does is quoted. A line
// starts after any Unicode mandatory break (VT and FF too), and blank or invisible characters
// before the tag (NBSP, U+3000, zero-width, bidi, other controls such as NUL or ESC, and the
// fillers and selectors sanitizeField treats as invisible) do not hide it.
const forgedTag =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: variation selectors are matched on purpose, one by one.
  /(^|[\n\v\f\r\u0085\u2028\u2029])((?:[^\S\n\v\f\r\u2028\u2029]|[\u0000-\u0009\u000e-\u001f\u007f-\u0084\u0086-\u009f]|\p{Cf}|[\u115f\u1160\u17b4\u17b5\u180b-\u180f\u3164\ufe00-\ufe0f\uffa0])*)\[mailbox\]/gu;

export function neutralize(text: string): string {
  return text.replace(forgedTag, "$1$2> [mailbox]");
}

/** An id as a label shows it (cut, controls blanked): what a model reading the label may give back. */
export const shownId = (id: string): string => field(id);

function kindLine(input: LabelInput): string {
  const { envelope } = input;
  const id = shownId(envelope.id);
  switch (envelope.kind) {
    case "request":
      return `It sent you request ${id}. Your final answer this turn goes back to it automatically.`;
    case "ask":
      return `It is waiting for your answer to ask ${id}. Answer with session_mail_reply (ask "${id}"); otherwise the last message of this run is sent as the answer.`;
    case "message":
      return `It sent you message ${id}, which expects no answer. If you want to answer anyway, use session_mail_send to ${field(envelope.from)}.`;
    case "reply":
      return replyLine(input);
    default: {
      const never: never = envelope.kind;
      return never;
    }
  }
}

function replyLine(input: LabelInput): string {
  const { envelope, quoted } = input;
  const kinds = new Set(quoted.map((q) => q.copy?.envelope.kind ?? "request"));
  const what = kinds.size === 1 && kinds.has("ask") ? "ask" : "request";
  const ids = quoted.map((q) => field(q.id)).join(", ");
  const parts = [
    `This is its reply, status ${field(envelope.status)}, to your ${what}${quoted.length > 1 ? "s" : ""} ${ids}.`,
  ];
  if (envelope.status !== "done") {
    const why = envelope.status === "stopped" ? "the user stopped that run" : "that run did not finish the job";
    parts.push(`It is not an answer: ${why}.`);
  }
  if (quoted.some((q) => (q.copy?.envelope.kind ?? "request") === "request")) {
    parts.push(
      "You did not write that request: the user made it, typing it with /mailbox or through an extension such as delegate.",
    );
  }
  if (input.askStoppedWaiting) parts.push("Your session_mail_ask had stopped waiting, so it arrives as mail.");
  return parts.join(" ");
}

function quoteLines(quoted: readonly QuotedRequest[]): string[] {
  if (quoted.length === 0) return [];
  const lines = ["It answers:"];
  for (const q of quoted) {
    if (q.copy === undefined) {
      lines.push(`- ${field(q.id)} (this session kept no copy)`);
      continue;
    }
    // The copy's path is always given (the spec's "with the sent/ copy's path"), cut or not.
    const { text, cut } = cutUtf8(q.copy.envelope.body, quotedRequestBytesMax);
    const tail = cut ? ` [cut at ${quotedRequestBytesMax / 1024} KiB]` : "";
    const copy = `sent copy at ${field(q.copy.path)}`;
    lines.push(`- ${q.copy.envelope.kind} ${field(q.id)} (${copy}): ${neutralize(text)}${tail}`);
  }
  return lines;
}

/** The whole text injected for one envelope: the from line, what kind of mail it is, the body
 * (cut at 32 KiB), the requests a reply answers, and the end line. */
export function frameMail(input: LabelInput): string {
  const { envelope, sender } = input;
  const { text, cut } = cutUtf8(envelope.body, injectBodyBytesMax);
  const lines = [fromLine(envelope, sender), kindLine(input), "", neutralize(text)];
  if (cut)
    lines.push(
      `[The body was cut at ${injectBodyBytesMax / 1024} KiB; the whole envelope is at ${field(input.path)}.]`,
    );
  if (envelope.kind === "reply") lines.push("", ...quoteLines(input.quoted));
  lines.push(endLine(envelope, sender));
  return lines.join("\n");
}

/** What replaces mail that enters the conversation after it was answered failed as unread: the
 * sender was told nothing was done, so the model must not act on it now. */
export function droppedNotice(mailId: string): string {
  return `[mailbox] Mail ${field(mailId)} arrived after the user stopped the run that should have read it. Its sender was already told that nothing was done, so it is withdrawn: do not act on it.`;
}
