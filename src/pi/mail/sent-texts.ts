import { shortId } from "../../domain/mail/address.js";
import type { CancelError, SentItem } from "../../domain/mail/engine/index.js";
import { labelFieldCharsMax, sentListedMax, shownLineCharsMax } from "../../domain/mail/limits.js";
import { sentStateWords } from "../../domain/mail/sent-state.js";
import { describeStoreError } from "../../domain/mail/store-errors.js";
import { formatAge } from "../../domain/shared/text/age.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

const recipientOf = (item: SentItem) => field(item.toName ?? shortId(item.to));

function itemLine(item: SentItem, nowMs: number): string {
  const age = item.sentAtMs === undefined ? "" : `, ${formatAge(nowMs - item.sentAtMs)}`;
  const state = sentStateWords(item.state, recipientOf(item));
  const text = sanitizeField(item.firstLine, shownLineCharsMax);
  return `- ${item.kind} ${shortId(item.id)} to ${recipientOf(item)}${age}: ${state} · ${text}`;
}

/** The newest first. */
export function describeSentList(items: readonly SentItem[], nowMs: number): string {
  if (items.length === 0) return "This session has sent no mail (or its sent copies were pruned).";
  const lines = [...items].reverse().map((item) => itemLine(item, nowMs));
  const queued = items.some(
    (i) => (i.state === "queued" || i.state === "waiting-start" || i.state === "held-back") && i.kind !== "ask",
  );
  const tail = queued ? ["/mailbox cancel <id> withdraws a request or message still queued."] : [];
  const head = `Sent by this session (the newest ${sentListedMax} at most), newest first:`;
  return [head, ...lines, ...tail].join("\n");
}

/** What `/mailbox hold`, `refuse` and `accept` did; `heldBack`: mail held back before an accept. */
export function describeMailMode(mode: "hold" | "accept" | "refuse", heldBack: number): string {
  switch (mode) {
    case "hold":
      return "Holding mail back: requests, asks and messages to this session stay queued in its inbox (senders can still withdraw them) until /mailbox accept. Replies to its own asks still come, and bus mail raises no turn.";
    case "refuse":
      return "Refusing mail: sends and asks to this session now fail at once, telling the sender why, until /mailbox accept. What is already queued stays queued; replies to its own asks still come.";
    case "accept":
      return heldBack > 0
        ? `Accepting mail again: the ${heldBack === 1 ? "1 mail" : `${heldBack} mails`} held back come now.`
        : "Accepting mail: everything sent to this session reaches it.";
    default: {
      const never: never = mode;
      return never;
    }
  }
}

export function describeCancelled(item: SentItem): string {
  return `Withdrawn: the ${item.kind} ${shortId(item.id)} to ${recipientOf(item)} was still queued, and now never reaches it.`;
}

export function describeCancelError(error: CancelError): string {
  switch (error.kind) {
    case "not-started":
      return "This session's mailbox is not running.";
    case "unknown":
      return `No mail among the ${sentListedMax} newest this session sent has an id starting with "${field(error.id)}" (an id prefix needs 8 or more characters). /mailbox sent lists them.`;
    case "ambiguous":
      return `"${field(error.id)}" starts ${error.count} ids of mail this session sent: type more of it.`;
    case "is-ask":
      return `${shortId(error.id)} is an ask: its tool call waits for the answer. Stop that run (Esc) to give up the wait; the ask itself stays with its recipient.`;
    case "claimed":
      return `Too late: the ${error.item.kind} ${shortId(error.item.id)} to ${recipientOf(error.item)} was already taken from its inbox (${sentStateWords(error.item.state, recipientOf(error.item))}). Send it a message if it should be ignored.`;
    case "store":
      return `Nothing was withdrawn: ${describeStoreError(error.error)}.`;
    default: {
      const never: never = error;
      return never;
    }
  }
}
