// A run settled: answer what it owes, hold what the user took over, reset the turn.
import { freshHops } from "../hop-rules.js";
import { planSettle, type RunOutcome } from "../settle-rules.js";
import type { EngineContext } from "./context.js";
import { settleJournal, settleQuiet } from "./inbox.js";
import { writeAutomaticReply } from "./outbox.js";

export function settle(ctx: EngineContext, outcome: RunOutcome): void {
  const { state } = ctx;
  const plan = planSettle({
    read: state.read,
    held: state.held,
    unread: [...state.pending.values()],
    answeredAsks: new Set(state.read.filter((m) => state.answered.has(m.id)).map((m) => m.id)),
    outcome,
  });
  for (const reply of plan.replies) {
    writeAutomaticReply(ctx, reply);
    for (const id of reply.inReplyTo) state.answered.add(id);
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
