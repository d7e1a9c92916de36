// The poll does the work the watcher's hints may have missed, and the chores of a running mailbox:
// retries, the record's refresh, the owner check, the tmp/ sweep. Owns its timer and cadences.
import type { StoreError } from "../../../ports/shared/store-error.js";
import {
  createRepeatingTimer,
  createTicker,
  type RepeatingTimer,
  type RunOutcome,
  type Ticker,
} from "../../shared/ticker.js";
import { sweepEveryPolls, tmpLeftoverAgeMs } from "../limits.js";
import type { AskLedger } from "./ask-ledger.js";
import { rebuildAwaiting } from "./awaiting.js";
import type { Backlog } from "./backlog.js";
import type { MailContext } from "./context.js";
import type { Footer } from "./footer.js";
import type { Intake } from "./intake.js";
import type { Journal } from "./journal.js";
import type { OwedReplies } from "./owed-replies.js";
import type { Ownership } from "./ownership.js";
import type { Presence } from "./presence.js";
import { pruneBoxes } from "./prune.js";
import { rootHolds } from "./root-guard.js";
import type { Waits } from "./waits.js";

export interface Poll {
  /** Starts polling; the first poll runs the start's chores (the sweep, the prune after `pruneAfterDays`). */
  begin(pruneAfterDays: number): void;
  cancel(): void;
  /** The owner check when it is due (at most every ownerCheckMs; free otherwise), also run before
   * a claim: a process that was stopped longer than that may have lost its inbox meanwhile. */
  checkOwner(): void;
}

interface PollState {
  timer: RepeatingTimer;
  sweeps: Ticker;
  /** The sweep and prune of a start, run by the first poll. */
  chores: (() => void) | undefined;
}

interface PollParts {
  intake: Intake;
  owed: OwedReplies;
  journal: Journal;
  presence: Presence;
  ownership: Ownership;
  waits: Waits;
  backlog: Backlog;
  ledger: AskLedger;
  footer: Footer;
  /** What the lifecycle does when this process takes its inbox over, loses it, or finds the root
   * replaced: callbacks, since the lifecycle (made after the poll) starts and stops it. */
  owned(): void;
  disowned(): void;
  halt(error: StoreError): void;
}

/** What the poll's functions reach: the ports and the parts its factory was given. */
type PollContext = MailContext & PollParts;

export function createPoll(mail: MailContext, parts: PollParts): Poll {
  const ctx: PollContext = { ...mail, ...parts };
  const s: PollState = {
    timer: createRepeatingTimer(ctx.clock, ctx.pollIntervalMs, () => poll(ctx, s)),
    sweeps: createTicker(sweepEveryPolls),
    chores: undefined,
  };
  return {
    checkOwner: () => checkOwner(ctx),
    begin(pruneAfterDays) {
      // The tmp/ sweep and the prune read every mailbox folder: they wait for the first poll, off
      // the path of Pi's start (until Pi answers its first request, every millisecond shows).
      s.chores = () => {
        rebuildAwaiting(ctx, ctx);
        sweep(ctx);
        pruneBoxes(ctx, ctx.presence, pruneAfterDays);
      };
      s.timer.start();
    },
    cancel: () => s.timer.stop(),
  };
}

/** One poll; a throw from it does not stop the later ones (the timer arms again). */
function poll(ctx: PollContext, s: PollState): RunOutcome {
  if (ctx.session.closed() || !rootHolds(ctx, ctx.halt)) return "done";
  pollOnce(ctx, s);
  return ctx.session.closed() ? "done" : "again";
}

function pollOnce(ctx: PollContext, s: PollState): void {
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

function sweep(ctx: PollContext): void {
  const address = ctx.session.address();
  if (address !== undefined) ctx.store.sweepTmp(address, ctx.clock.now(), tmpLeftoverAgeMs);
}

function checkWaitingTarget(ctx: PollContext): void {
  const waiting = ctx.waits.waiting();
  if (waiting !== undefined && ctx.presence.findRunning(waiting.to) === undefined)
    waiting.finish({ kind: "target-gone" });
}

/** A guest tries to take the inbox over; an owner checks it still holds it. */
function checkOwner(ctx: PollContext): void {
  const change = ctx.ownership.check();
  switch (change) {
    case "taken":
      ctx.notices.tell({ kind: "owner-now" });
      ctx.owned();
      return;
    case "lost":
      // Another process holds it now: stop claiming; what this one showed stays shown.
      ctx.disowned();
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
