// A run settled: answer what it owes, hold what the user took over, reset the turn.

import { shortId } from "../address.js";
import { freshHops } from "../hop-rules.js";
import { owedRepliesMax } from "../limits.js";
import { describeHeld, planSettle, type RunOutcome } from "../settle-rules.js";
import { markAnswered } from "./ask-ledger.js";
import type { EngineContext } from "./context.js";
import { settleJournal, settleQuiet } from "./delivery.js";
import { type AutomaticReply, writeAutomaticReply } from "./outbox.js";
import { findRunning } from "./presence.js";

export function settle(ctx: EngineContext, outcome: RunOutcome): void {
  const { state } = ctx;
  const plan = planSettle({
    read: state.read,
    held: state.held,
    unread: [...state.pending.values()],
    answeredAsks: new Set(state.read.filter((m) => state.answered.has(m.id)).map((m) => m.id)),
    outcome,
  });
  // A stop holds the requests it read, and their senders see no reply yet: the pane says so.
  if (outcome.kind === "stopped" && plan.held.length > 0)
    ctx.notify(
      describeHeld(plan.held, (from) => findRunning(ctx, from)?.name || shortId(from)),
      "info",
    );
  const unwritten = new Set<string>();
  for (const planned of plan.replies) {
    const reply = { ...planned, hops: state.hops.count };
    // Answered either way, so nothing answers it twice; one that could not be written stays owed.
    markAnswered(ctx, reply.inReplyTo);
    if (writeAutomaticReply(ctx, reply)) continue;
    owe(ctx, reply);
    for (const id of reply.inReplyTo) unwritten.add(id);
  }
  for (const dropped of plan.dropped) {
    state.pending.delete(dropped.id);
    // Its "failed" answer not written yet: it stays journaled, so a crash before the retry shows
    // it again (and it is answered then) instead of losing it.
    if (!unwritten.has(dropped.id)) settleJournal(ctx, dropped.id, "answered");
    state.dropped.add(dropped.id);
  }
  state.held = plan.held;
  state.read = [];
  state.readOwed.clear();
  state.hops = freshHops;
  settleQuiet(ctx);
}

function owe(ctx: EngineContext, reply: AutomaticReply): void {
  const { owedReplies } = ctx.state;
  if (owedReplies.length < owedRepliesMax) {
    owedReplies.push(reply);
    return;
  }
  ctx.warnOnce(
    "owed-full",
    `${owedRepliesMax} answers could not be written and wait to be tried again; the answer to ${reply.to} is given up.`,
    "error",
  );
}

/** Answers a settle could not write, tried again (at each poll) in the order they were owed. */
export function retryOwedReplies(ctx: EngineContext): void {
  const { state } = ctx;
  while (state.owedReplies.length > 0 && !state.closed) {
    const reply = state.owedReplies[0]!;
    // The ledger first: written without it, a crash after the answer could answer it again.
    if (!markAnswered(ctx, reply.inReplyTo)) return;
    if (!writeAutomaticReply(ctx, reply)) return;
    state.owedReplies.shift();
    for (const id of reply.inReplyTo) settleJournal(ctx, id, "answered");
    ctx.notify(`The answer to ${reply.to} that could not be written before is written now.`, "info");
  }
}
