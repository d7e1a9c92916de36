// A run settled: it answers what it owes (done, or failed as never read), holds the requests a
// stop took over, and the turn begins afresh. One function, its collaborators named.
import { type Address, shortId } from "../address.js";
import type { MailNotice } from "../mail-notice.js";
import { heldSendersNamed, type OwedMail, planSettle, type RunOutcome } from "../settle-rules.js";
import type { AskLedger } from "./ask-ledger.js";
import type { MailContext } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Footer } from "./footer.js";
import type { Journal } from "./journal.js";
import type { OwedReplies } from "./owed-replies.js";
import type { Presence } from "./presence.js";
import type { Run } from "./run.js";

interface SettleParts {
  run: Run;
  delivery: Delivery;
  ledger: AskLedger;
  owed: OwedReplies;
  journal: Journal;
  footer: Footer;
  presence: Presence;
}

export function runSettled(ctx: MailContext, parts: SettleParts, outcome: RunOutcome): void {
  if (ctx.session.closed()) return;
  const { run, delivery, ledger, owed, journal } = parts;
  const plan = planSettle({
    read: [...run.read()],
    held: [...run.held()],
    unread: delivery.pending(),
    answeredAsks: new Set(
      run
        .read()
        .filter((m) => ledger.isAnswered(m.id))
        .map((m) => m.id),
    ),
    outcome,
  });
  // A stop holds the requests it read, and their senders see no reply yet: the pane says so.
  if (outcome.kind === "stopped" && plan.held.length > 0) ctx.notices.tell(heldNotice(parts.presence, plan.held));
  const unwritten = new Set<string>();
  for (const planned of plan.replies) {
    const reply = { ...planned, hops: run.hops().count };
    // Answered either way, so nothing answers it twice; one that could not be written stays owed.
    ledger.markAnswered(reply.inReplyTo);
    if (owed.write(reply)) continue;
    owed.owe(reply);
    for (const id of reply.inReplyTo) unwritten.add(id);
  }
  for (const dropped of plan.dropped) {
    delivery.drop(dropped.id);
    // Its "failed" answer not written yet: it stays journaled, so a crash before the retry shows
    // it again (and it is answered then) instead of losing it.
    if (!unwritten.has(dropped.id)) journal.settle(dropped.id, "answered");
  }
  parts.footer.clearRead();
  run.settled(
    plan.held,
    plan.dropped.map((d) => d.id),
  );
  delivery.settleQuiet();
  parts.presence.write();
}

/** Names only the senders the notice shows (a name may cost a running record's read). */
function heldNotice(presence: Presence, held: readonly OwedMail[]): MailNotice {
  const names = new Map<Address, string>();
  for (const from of heldSendersNamed(held)) names.set(from, presence.findRunning(from)?.name || shortId(from));
  return { kind: "held", held, names };
}
