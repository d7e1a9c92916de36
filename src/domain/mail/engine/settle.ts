// A run settled: answer what it owes, hold what the user took over, reset the turn.
import { owedRepliesMax } from "../../limits.js";
import { freshHops } from "../hop-rules.js";
import { planSettle, type RunOutcome } from "../settle-rules.js";
import type { EngineContext } from "./context.js";
import { settleJournal, settleQuiet } from "./inbox.js";
import { type AutomaticReply, writeAutomaticReply } from "./outbox.js";

export function settle(ctx: EngineContext, outcome: RunOutcome): void {
  const { state } = ctx;
  const plan = planSettle({
    read: state.read,
    held: state.held,
    unread: [...state.pending.values()],
    answeredAsks: new Set(state.read.filter((m) => state.answered.has(m.id)).map((m) => m.id)),
    outcome,
  });
  for (const planned of plan.replies) {
    const reply = { ...planned, hops: state.hops.count };
    // Answered either way, so nothing answers it twice; one that could not be written stays owed.
    for (const id of reply.inReplyTo) state.answered.add(id);
    if (!writeAutomaticReply(ctx, reply)) owe(ctx, reply);
  }
  for (const dropped of plan.dropped) {
    state.pending.delete(dropped.id);
    settleJournal(ctx, dropped.id, "answered");
    state.dropped.add(dropped.id);
  }
  state.held = plan.held;
  state.read = [];
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
    if (!writeAutomaticReply(ctx, reply)) return;
    state.owedReplies.shift();
    ctx.notify(`The answer to ${reply.to} that could not be written before is written now.`, "info");
  }
}
