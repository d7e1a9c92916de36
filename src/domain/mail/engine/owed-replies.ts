// Answers a settle owes: written at once, and those that could not be written (a full disk) kept
// and tried again at each poll, in the order they were owed. Owns that queue (owedRepliesMax).
import { cutUtf8 } from "../../shared/text/utf8.js";
import type { Address } from "../address.js";
import type { ReplyStatus } from "../envelope.js";
import { automaticAnswerBytesMax, owedRepliesMax, sendBodyBytesMax } from "../limits.js";
import type { AskLedger } from "./ask-ledger.js";
import type { MailContext } from "./context.js";
import type { Journal } from "./journal.js";
import { type WriterParts, writeMail } from "./mail-writer.js";

/** An automatic answer at settle: carries the count, never refused, cut to the size limit. */
interface AutomaticReply {
  to: Address;
  inReplyTo: string[];
  status: ReplyStatus;
  body: string;
  hops: number;
}

export interface OwedReplies {
  /** Writes an answer of a settle; false when it could not be written (it is still owed). */
  write(reply: AutomaticReply): boolean;
  /** Keeps an answer that could not be written, to be tried again. */
  owe(reply: AutomaticReply): void;
  /** Tries the kept answers again, oldest first, until one fails. */
  retry(): void;
  /** The ids the kept answers answer. */
  owedIds(): Set<string>;
}

interface OwedParts extends WriterParts {
  ledger: AskLedger;
  journal: Journal;
}

export function createOwedReplies(ctx: MailContext, parts: OwedParts): OwedReplies {
  const owed: AutomaticReply[] = [];
  const write = (reply: AutomaticReply) => writeAutomaticReply(ctx, parts, reply);
  return {
    write,
    owe(reply) {
      if (owed.length < owedRepliesMax) {
        owed.push(reply);
        return;
      }
      ctx.notices.once("owed-full", { kind: "answers-given-up", to: reply.to, owedMax: owedRepliesMax });
    },
    retry() {
      while (owed.length > 0 && !ctx.session.closed()) {
        const reply = owed[0]!;
        // The ledger first: written without it, a crash after the answer could answer it again.
        if (!parts.ledger.markAnswered(reply.inReplyTo)) return;
        if (!write(reply)) return;
        owed.shift();
        for (const id of reply.inReplyTo) parts.journal.settle(id, "answered");
        ctx.notices.tell({ kind: "answer-written", to: reply.to });
      }
    },
    owedIds: () => new Set(owed.flatMap((reply) => reply.inReplyTo)),
  };
}

function writeAutomaticReply(ctx: MailContext, parts: WriterParts, reply: AutomaticReply): boolean {
  const { text, cut } = cutUtf8(reply.body, automaticAnswerBytesMax);
  const body = cut ? `${text}\n\n[The answer was cut at ${sendBodyBytesMax / 1024} KiB.]` : text;
  const { to, inReplyTo, status, hops } = reply;
  const sent = writeMail(ctx, parts, { to, kind: "reply", hops, body, inReplyTo, status });
  if (sent.isOk()) return true;
  const notice = { kind: "answer-unwritten", to, error: sent.error.error } as const;
  ctx.notices.once(`reply:${inReplyTo.join(",")}`, notice);
  return false;
}
