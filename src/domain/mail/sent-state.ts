// What became of mail this session sent, read from the files alone: the recipient's new/ (queued),
// its claim journal (claimed, not yet in its conversation), its running record (running, busy or
// idle), and the replies this session received. Another implementation keeps no claim journal: its
// claimed mail reads as read, never as delivered.
import type { MailKind } from "./envelope.js";

export type SentState =
  /** In the recipient's new/, which it reads: claimed at its next look. */
  | "queued"
  /** In the recipient's new/, and the recipient is not running: it waits for it to start. */
  | "waiting-start"
  /** In the recipient's new/, kept there by its person (`/mailbox hold` or `refuse`). */
  | "held-back"
  /** Claimed into its cur/ but not yet in its conversation. */
  | "delivered"
  /** In its conversation (a message ends here). */
  | "read"
  /** Read by a session that is idle with no answer written: a stopped run holds it, and the next
   * run that completes answers it. */
  | "held"
  | "answered";

/** What the files say of one sent item. */
interface SentFacts {
  kind: Exclude<MailKind, "reply">;
  /** Its file is in the recipient's new/. */
  queued: boolean;
  /** The recipient's claim journal names it. */
  journaled: boolean;
  /** A reply this session received answers it. */
  answered: boolean;
  recipient: { running: boolean; idle: boolean; holding?: boolean };
}

export function sentState(facts: SentFacts): SentState {
  if (facts.answered) return "answered";
  if (facts.queued) {
    if (!facts.recipient.running) return "waiting-start";
    return facts.recipient.holding === true ? "held-back" : "queued";
  }
  if (facts.journaled) return "delivered";
  const owesAnswer = facts.kind !== "message";
  return owesAnswer && facts.recipient.running && facts.recipient.idle ? "held" : "read";
}

/** A state in the words of a listing; `recipient` is how the listing names it. */
export function sentStateWords(state: SentState, recipient: string): string {
  switch (state) {
    case "queued":
      return "queued";
    case "waiting-start":
      return `waiting for ${recipient} to start`;
    case "held-back":
      return `queued, held back by ${recipient}'s person`;
    case "delivered":
      return "delivered";
    case "read":
      return "read";
    case "held":
      return "held (a stopped run holds it)";
    case "answered":
      return "answered";
    default: {
      const never: never = state;
      return never;
    }
  }
}
