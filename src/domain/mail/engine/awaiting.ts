// The footer's "awaiting" after a restart: the requests and asks this session sent (its sent/
// copies) that no reply it received (its cur/) answers yet. Rebuilt once, at the first poll, from
// the newest copies only: bounded work off the path of Pi's start.
import { awaitingCopiesMax } from "../limits.js";
import type { AskLedger } from "./ask-ledger.js";
import type { MailContext } from "./context.js";
import type { Footer } from "./footer.js";
import type { Ownership } from "./ownership.js";
import { answeredIds, ownSentCopies } from "./sent-copies.js";

export function rebuildAwaiting(
  ctx: MailContext,
  parts: { ownership: Ownership; ledger: AskLedger; footer: Footer },
): void {
  const address = ctx.session.address();
  if (address === undefined || parts.ownership.guest()) return;
  const copies = ownSentCopies(ctx, address, awaitingCopiesMax);
  const open = copies.filter((c) => c.envelope.kind === "request" || c.envelope.kind === "ask");
  if (open.length === 0) return;
  const answered = answeredIds(ctx, address, copies[0]?.name ?? "");
  for (const { envelope } of open)
    if (!answered.has(envelope.id) && !parts.ledger.isAnswered(envelope.id)) parts.footer.await(envelope.id);
}
