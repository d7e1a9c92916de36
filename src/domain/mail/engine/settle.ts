// The run: whether one is active, its hop count, the mail it read, and what a stop holds. When a
// run settles it answers what it owes, holds what the user took over, and resets the turn.
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import { type Address, shortId } from "../address.js";
import { freshHops, type HopState, onInput, onMailEntered, onSettled } from "../hop-rules.js";
import { rememberedIdsMax } from "../limits.js";
import type { MailNotice } from "../mail-notice.js";
import { heldSendersNamed, type OwedMail, planSettle, type RunOutcome } from "../settle-rules.js";
import type { EngineContext } from "./context.js";

export interface Run {
  busy(): boolean;
  /** The turn's hop count, in effect now. */
  hops(): HopState;
  /** A person, an RPC client or a command's prompt started or steered the turn. */
  input(): void;
  started(): void;
  settled(outcome: RunOutcome): void;
  /** Mail carrying `hops` entered the conversation (or a listener took it over). */
  mailEntered(hops: number): void;
  /** Mail for the model entered the conversation: a request or an ask is owed an answer at settle
   * (a message is owed nothing and is not kept: a flood of them must not grow the run's state). */
  noteRead(mail: OwedMail): void;
  hasRead(mailId: string): boolean;
  heldCount(): number;
  /** Answered failed as never read by a stopped run. */
  wasDropped(mailId: string): boolean;
}

interface RunState {
  busy: boolean;
  hops: HopState;
  /** Read since the last settle (requests and asks). */
  read: OwedMail[];
  /** Requests held across stopped runs, at most heldRequestsMax (planSettle gives up the oldest). */
  held: OwedMail[];
  /** Mail a stopped run never read, already answered failed; if it still enters later, it is void. */
  dropped: BoundedIdSet;
}

export function createRun(ctx: EngineContext): Run {
  const s: RunState = {
    busy: false,
    hops: freshHops,
    read: [],
    held: [],
    dropped: createBoundedIdSet(rememberedIdsMax),
  };
  return {
    busy: () => s.busy,
    hops: () => s.hops,
    input() {
      s.hops = onInput(s.hops);
    },
    started() {
      if (s.busy || ctx.session.closed()) return;
      s.busy = true;
      ctx.presence.write();
    },
    settled(outcome) {
      if (ctx.session.closed()) return;
      settle(ctx, s, outcome);
      s.busy = false;
      ctx.presence.write();
    },
    mailEntered(hops) {
      s.hops = onMailEntered(s.hops, hops);
    },
    noteRead(mail) {
      if (mail.kind === "message") return;
      s.read.push(mail);
      if (!ctx.ledger.isAnswered(mail.id)) ctx.footer.oweRead(mail.id);
    },
    hasRead: (mailId) => s.read.some((m) => m.id === mailId),
    heldCount: () => s.held.length,
    wasDropped: (mailId) => s.dropped.has(mailId),
  };
}

function settle(ctx: EngineContext, s: RunState, outcome: RunOutcome): void {
  const plan = planSettle({
    read: s.read,
    held: s.held,
    unread: ctx.delivery.pending(),
    answeredAsks: new Set(s.read.filter((m) => ctx.ledger.isAnswered(m.id)).map((m) => m.id)),
    outcome,
  });
  // A stop holds the requests it read, and their senders see no reply yet: the pane says so.
  if (outcome.kind === "stopped" && plan.held.length > 0) ctx.notices.tell(heldNotice(ctx, plan.held));
  const unwritten = new Set<string>();
  for (const planned of plan.replies) {
    const reply = { ...planned, hops: s.hops.count };
    // Answered either way, so nothing answers it twice; one that could not be written stays owed.
    ctx.ledger.markAnswered(reply.inReplyTo);
    if (ctx.owed.write(reply)) continue;
    ctx.owed.owe(reply);
    for (const id of reply.inReplyTo) unwritten.add(id);
  }
  for (const dropped of plan.dropped) {
    ctx.delivery.drop(dropped.id);
    // Its "failed" answer not written yet: it stays journaled, so a crash before the retry shows
    // it again (and it is answered then) instead of losing it.
    if (!unwritten.has(dropped.id)) ctx.journal.settle(dropped.id, "answered");
    s.dropped.add(dropped.id);
  }
  s.held = plan.held;
  s.read = [];
  ctx.footer.clearRead();
  s.hops = onSettled(s.hops);
  ctx.delivery.settleQuiet();
}

/** Names only the senders the notice shows (a name may cost a running record's read). */
function heldNotice(ctx: EngineContext, held: readonly OwedMail[]): MailNotice {
  const names = new Map<Address, string>();
  for (const from of heldSendersNamed(held)) names.set(from, ctx.presence.findRunning(from)?.name || shortId(from));
  return { kind: "held", held, names };
}
