// Turning the engine's Results into the words a user or a model reads. The one place that does.

import { injectBodyBytesMax, labelFieldCharsMax } from "../domain/limits.js";
import { describeAddressError, displayName } from "../domain/mail/addressing.js";
import type { AskOutcome, ListedSession, ReplyError, SendError, Sent } from "../domain/mail/engine/index.js";
import { describeHopRefusal } from "../domain/mail/hop-rules.js";
import { describePathSafety } from "../domain/mail/path-safety.js";
import { sanitizeField } from "../domain/text/sanitize.js";
import { cutUtf8 } from "../domain/text/utf8.js";
import type { StoreError } from "../ports/mail-store.js";

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

export function describeStoreError(error: StoreError): string {
  switch (error.kind) {
    case "io":
      return `${error.op} ${field(error.path)} failed: ${error.code}`;
    case "not-a-folder":
      return `${field(error.path)} is not a real folder`;
    case "foreign-owner":
    case "open-ancestor":
    case "root-replaced":
      return describePathSafety(error);
    default: {
      const never: never = error;
      return never;
    }
  }
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
      return `Refused: the message is ${error.bytes} bytes; the limit is ${error.max}.`;
    case "hop-limit":
      return describeHopRefusal(error);
    case "not-running":
      return `Refused: ${error.to} is not running, so nobody would answer. Use session_mail_send to leave it a message.`;
    case "target-stopped":
      return `Refused: ${error.to} is stopped (suspended with Ctrl-Z), so it cannot answer now. Running fg in its terminal resumes it; or use session_mail_send to leave it a message, read once it resumes.`;
    case "ask-waiting":
      return `Refused: this session already waits on an answer from ${error.on}; one ask at a time.`;
    case "deadlock":
      return `Refused: ${error.to} is itself waiting on an answer from this session; asking back would deadlock. Answer it first.`;
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
      return `Refused: the answer is ${error.bytes} bytes; the limit is ${error.max}.`;
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
      const tail = cut ? `\n[cut at 32 KiB; the whole reply is at ${field(path)}]` : "";
      return `${status} from ${field(to)}:\n\n${text}${tail}`;
    }
    case "timeout":
      return `No answer yet from ${field(to)} after 10 minutes; stopped waiting. A later answer arrives as mail.`;
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

/** What cannot be checked about a listed session's process, if anything. */
function doubt(s: ListedSession): string {
  if (s.elsewhere)
    return " (runs in another pid namespace, a sandbox or container: its process cannot be checked from here)";
  return s.liveness === "unknown" ? " (cannot tell whether it still runs)" : "";
}

export function describeSessions(sessions: readonly ListedSession[]): string {
  if (sessions.length === 0) return "No session is running.";
  return sessions
    .map((s) => {
      const state = s.stopped
        ? `stopped (suspended with Ctrl-Z; fg in its terminal resumes it), was ${s.state}`
        : s.state;
      const waiting = s.waitingOn !== "" ? `, waiting on ${field(s.waitingOn)}` : "";
      const self = s.self ? " (this session)" : "";
      return `- ${field(displayName(s))} ${s.address}${self}: ${state}${waiting}, working in ${field(s.cwd)}${doubt(s)}`;
    })
    .join("\n");
}
