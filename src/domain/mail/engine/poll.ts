// The poll does the work the watcher's hints may have missed, and the chores of a running mailbox:
// retries, the record's refresh, the owner check, the tmp/ sweep. Owns its timer and cadences.
import type { TimerHandle } from "../../../ports/shared/clock.js";
import { createTicker, type Ticker } from "../../shared/ticker.js";
import { sweepEveryPolls, tmpLeftoverAgeMs } from "../limits.js";
import { rebuildAwaiting } from "./awaiting.js";
import type { EngineContext } from "./context.js";
import { pruneBoxes } from "./prune.js";
import { rootHolds } from "./root-guard.js";

export interface Poll {
  /** Starts polling; the first poll runs the start's chores (the sweep, the prune after `pruneAfterDays`). */
  begin(pruneAfterDays: number): void;
  cancel(): void;
  /** The owner check when it is due (at most every ownerCheckMs; free otherwise), also run before
   * a claim: a process that was stopped longer than that may have lost its inbox meanwhile. */
  checkOwner(): void;
}

interface PollState {
  timer: TimerHandle | undefined;
  sweeps: Ticker;
  /** The sweep and prune of a start, run by the first poll. */
  chores: (() => void) | undefined;
}

export function createPoll(ctx: EngineContext): Poll {
  const s: PollState = { timer: undefined, sweeps: createTicker(sweepEveryPolls), chores: undefined };
  return {
    checkOwner: () => checkOwner(ctx),
    begin(pruneAfterDays) {
      // The tmp/ sweep and the prune read every mailbox folder: they wait for the first poll, off
      // the path of Pi's start (until Pi answers its first request, every millisecond shows).
      s.chores = () => {
        rebuildAwaiting(ctx);
        sweep(ctx);
        pruneBoxes(ctx, pruneAfterDays);
      };
      schedule(ctx, s);
    },
    cancel: () => s.timer?.cancel(),
  };
}

function schedule(ctx: EngineContext, s: PollState): void {
  s.timer = ctx.clock.setTimer(ctx.pollIntervalMs, () => poll(ctx, s));
}

function poll(ctx: EngineContext, s: PollState): void {
  if (ctx.session.closed() || !rootHolds(ctx)) return;
  try {
    pollOnce(ctx, s);
  } finally {
    // A throw from one poll must not stop every later one.
    if (!ctx.session.closed()) schedule(ctx, s);
  }
}

function pollOnce(ctx: EngineContext, s: PollState): void {
  ctx.intake.recover(false);
  ctx.intake.retryStranded();
  ctx.owed.retry();
  ctx.intake.scan();
  const chores = s.chores;
  s.chores = undefined;
  chores?.();
  ctx.journal.flush();
  checkWaitingTarget(ctx);
  ctx.presence.refresh();
  checkOwner(ctx);
  if (s.sweeps.tick()) sweep(ctx);
}

function sweep(ctx: EngineContext): void {
  const address = ctx.session.address();
  if (address !== undefined) ctx.store.sweepTmp(address, ctx.clock.now(), tmpLeftoverAgeMs);
}

function checkWaitingTarget(ctx: EngineContext): void {
  const waiting = ctx.asks.waiting();
  if (waiting !== undefined && ctx.presence.findRunning(waiting.to) === undefined)
    waiting.finish({ kind: "target-gone" });
}

/** A guest tries to take the inbox over; an owner checks it still holds it. */
function checkOwner(ctx: EngineContext): void {
  const change = ctx.ownership.check();
  switch (change) {
    case "taken":
      ctx.notices.tell({ kind: "owner-now" });
      ctx.lifecycle.own();
      return;
    case "lost":
      // Another process holds it now: stop claiming; what this one showed stays shown.
      ctx.lifecycle.unwatch();
      ctx.backlog.forget();
      return;
    case "unchanged":
      return;
    default: {
      const never: never = change;
      throw new Error(`unknown ownership change ${String(never)}`);
    }
  }
}
