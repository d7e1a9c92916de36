import { describeAddressError } from "../../domain/mail/addressing.js";
import type { AskOutcome, ReplyError, SendError, Sent } from "../../domain/mail/engine/index.js";
import { neutralize } from "../../domain/mail/framing.js";
import { describeHopRefusal } from "../../domain/mail/hop-rules.js";
import {
  askWaitMs,
  injectBodyBytesMax,
  labelFieldCharsMax,
  mailboxListedMax,
  shownLineCharsMax,
} from "../../domain/mail/limits.js";
import { describeStoreError } from "../../domain/mail/store-errors.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { cutUtf8, kib } from "../../domain/shared/text/utf8.js";

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

/** A refusal as an error notice: Pi's TUI already opens it with "Error:", so it says "Refused" no more. */
export function asErrorNotice(refusal: string): string {
  if (!refusal.startsWith("Refused: ")) return refusal;
  const reason = refusal.slice("Refused: ".length);
  return reason.charAt(0).toUpperCase() + reason.slice(1);
}

export function describeSendError(error: SendError): string {
  switch (error.kind) {
    case "no-session":
      return "Refused: this session's mailbox is not running.";
    case "address":
      return `Refused: ${describeAddressError(error.error)}`;
    case "invalid-address":
      return `Refused: "${field(error.to)}" is not a session address.`;
    case "empty-body":
      return "Refused: the message is empty.";
    case "body-too-large":
      return `Refused: the message is ${kib(error.bytes)}; the limit is ${kib(error.max)}.`;
    case "hop-limit":
      return describeHopRefusal(error);
    case "not-running":
      return `Refused: ${error.to} is not running, so nobody would answer. Use session_mail_send to leave it a message.`;
    case "target-stopped":
      return `Refused: ${error.to} is stopped (suspended with Ctrl-Z), so it cannot answer now. Running fg in its terminal resumes it; or use session_mail_send to leave it a message, read once it resumes.`;
    case "ask-waiting":
      return `Refused: this session already waits on an answer from ${error.on}; one ask at a time.`;
    case "deadlock":
      if (error.via === undefined) {
        return `Refused: ${error.to} is itself waiting on an answer from this session; asking back would deadlock. Answer it first.`;
      }
      return `Refused: ${error.to} waits on ${error.via.join(", which waits on ")}, which waits on an answer from this session: asking ${error.to} would close the loop, and each of you would wait until its ask times out. Answer what waits on this session first, or use session_mail_send.`;
    case "refused": {
      const who = error.name === undefined ? error.to : `${field(error.name)} (${error.to})`;
      return `Refused: the session ${who} takes no mail now: its person typed /mailbox refuse. Nothing was sent; try again once it accepts mail, or ask its person.`;
    }
    case "not-owner":
      return "Refused: this session is open in another process too, which reads its mail; the answer would reach that one. Ask from there, or use session_mail_send.";
    case "store":
      return `Refused: nothing was sent (${describeStoreError(error.error)}).`;
    default: {
      const never: never = error;
      return never;
    }
  }
}

export function describeReplyError(error: ReplyError): string {
  switch (error.kind) {
    case "no-session":
      return "Refused: this session's mailbox is not running.";
    case "empty-body":
      return "Refused: the answer is empty.";
    case "body-too-large":
      return `Refused: the answer is ${kib(error.bytes)}; the limit is ${kib(error.max)}.`;
    case "unknown-ask":
      return `Refused: no ask ${field(error.id)} reached this session.`;
    case "not-an-ask":
      return error.is === "request"
        ? `Refused: ${field(error.id)} is a request; it is answered automatically when this run completes.`
        : `Refused: ${field(error.id)} is a ${error.is}, which expects no answer.`;
    case "already-answered":
      return `Refused: ask ${field(error.id)} has already been answered.`;
    case "store":
      return `Refused: nothing was sent (${describeStoreError(error.error)}).`;
    default: {
      const never: never = error;
      return never;
    }
  }
}

export function describeSent(sent: Sent, to: string): string {
  const { envelope } = sent;
  const where = sent.recipientRunning
    ? "It is delivered now."
    : "That session is not running: the message waits in its inbox until it starts again.";
  // In the inbox although the folder fsync failed: sending it again would deliver it twice.
  const durable =
    sent.unsynced === undefined
      ? ""
      : ` It is in the inbox but not yet durable (${describeStoreError(sent.unsynced)}): a power cut could still lose it. Do not send it again.`;
  return `Sent ${envelope.kind} ${envelope.id} to ${field(to)} (${envelope.to}). ${where}${durable}`;
}

export function describeAskOutcome(outcome: AskOutcome, to: string): string {
  switch (outcome.kind) {
    case "answered": {
      const { envelope, path } = outcome;
      const { text, cut } = cutUtf8(envelope.body, injectBodyBytesMax);
      const status = envelope.status === "done" ? "Answer" : `Not an answer (status ${envelope.status})`;
      const tail = cut ? `\n[cut at ${injectBodyBytesMax / 1024} KiB; the whole reply is at ${field(path)}]` : "";
      // A peer's body, like injected mail's: a line of it that begins with [mailbox] is quoted.
      return `${status} from ${field(to)}:\n\n${neutralize(text)}${tail}`;
    }
    case "timeout":
      return `No answer yet from ${field(to)} after ${askWaitMs / 60_000} minutes; stopped waiting. A later answer arrives as mail.`;
    case "target-gone":
      return `${field(to)} stopped running before it answered; stopped waiting. If it resumes and answers, the answer arrives as mail.`;
    case "aborted":
      return "Stopped waiting: the run was stopped. A later answer arrives as mail.";
    default: {
      const never: never = outcome;
      return never;
    }
  }
}

/** What /mailbox says about a request it wrote: where it is, when the recipient does not run. */
export function describeRequestSent(sent: Sent): string {
  const { envelope } = sent;
  if (sent.unsynced !== undefined) return describeSent(sent, envelope.to);
  const sentTo = `Sent ${envelope.id} to ${envelope.to}`;
  return sent.recipientRunning
    ? sentTo
    : `${sentTo}. That session is not running: the request waits in its inbox until that session starts.`;
}

export function describeUnterminated(rest: string): string {
  return `The quote before ${sanitizeField(rest, shownLineCharsMax)} is never closed. A name with spaces goes in quotes, then the text: /mailbox "code reviewer" <text>`;
}

/** `/mailbox <to>` with no text: what is missing, with the recipient as it was typed. */
export function describeNothingToSend(recipient: string): string {
  const to = field(recipient);
  return `Nothing to send to ${to}: type the text after the recipient, as in /mailbox ${to} <text>.`;
}

/** What cannot be checked about a listed session's process, if anything. */

/** The warning when this session's name is also another running session's. */
export function describeNamesakes(name: string, others: readonly string[]): string {
  const who =
    others.length === 1
      ? `Another running session (${others[0]}) is`
      : `${others.length} other running sessions (${others.slice(0, mailboxListedMax).join(", ")}) are`;
  return `${who} also named "${field(name)}": mail to "${field(name)}" is refused as ambiguous until one of them is renamed. /name gives this session another name.`;
}

/** The warning when this session's name is how other running sessions' ids begin: typed, it now
 * reaches this session by name, and each of those is reached by the longer prefix named. */
export function describeIdLookalike(name: string, prefixes: readonly string[]): string {
  const who =
    prefixes.length === 1
      ? `Another running session's id starts with "${field(name)}" (type ${prefixes[0]} to reach it)`
      : `${prefixes.length} other running sessions' ids start with "${field(name)}" (type ${prefixes.slice(0, mailboxListedMax).join(", ")} to reach them)`;
  return `${who}: mail to "${field(name)}" reaches this session, by its name, instead. /name gives this session another name.`;
}
