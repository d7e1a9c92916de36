// A session's mailbox from start to its polls. A start that fails (a read-only root, a full disk,
// a folder in the way) is retried until it succeeds or the session ends: the mailbox never stays
// off for a cause that went away. The poll does the work the watcher's hints may have missed.

import { readConfig } from "../config.js";
import { ownerCheckMs, startRetryMs, sweepEveryPolls, tmpLeftoverAgeMs } from "../limits.js";
import { describeStoreError as describe } from "../store-errors.js";
import { loadAskLedger } from "./ask-ledger.js";
import { rebuildAwaiting } from "./awaiting.js";
import type { EngineContext, SessionIdentity } from "./context.js";
import { writeJournal } from "./delivery.js";
import { claimHinted, recoverClaimed, retryStranded, scanInbox } from "./intake.js";
import { stillOwner, takeOwnership } from "./ownership.js";
import { findRunning, refreshOwnRecord, writeOwnRecord } from "./presence.js";
import { pruneBoxes } from "./prune.js";
import { rootHolds } from "./root-guard.js";
import { retryOwedReplies } from "./settle.js";

/** sessionStarted: opens the mailbox (retrying), then starts it. */
export function beginSession(ctx: EngineContext, identity: SessionIdentity): void {
  openMailbox(ctx, identity, () => start(ctx, identity));
}

/** Opens the root and this session's box, then runs `begin`; on failure, says so once and tries
 * again every startRetryMs. Until it opens, the session has no identity: every send is refused as
 * "the mailbox is not running", and nothing is claimed. */
export function openMailbox(ctx: EngineContext, identity: SessionIdentity, begin: () => void): void {
  const { state } = ctx;
  state.opening = identity;
  const opened = ctx.store.openRoot().andThen(() => ctx.store.openBox(identity.address));
  if (opened.isErr()) {
    ctx.warnOnce(
      `open:${describe(opened.error)}`,
      `The mailbox is off for this session: ${describe(opened.error)}. It tries again every ${startRetryMs / 1000} s.`,
      "error",
    );
    state.openFailed = true;
    state.openRetry = ctx.clock.setTimer(startRetryMs, () => {
      state.openRetry = undefined;
      if (!state.closed && state.opening !== undefined) openMailbox(ctx, state.opening, begin);
    });
    return;
  }
  if (state.openFailed) ctx.notify("The mailbox is on again for this session.", "info");
  state.opening = undefined;
  state.openFailed = false;
  state.identity = identity;
  if (opened.value.openToOthers) {
    ctx.warnOnce(
      "open-folder",
      `This session's mailbox folder is open to other users. Run: chmod 700 ${opened.value.path}`,
    );
  }
  begin();
}

function start(ctx: EngineContext, identity: SessionIdentity): void {
  const { state } = ctx;
  const reading = readConfig(ctx.config.read(), ctx.config.path);
  if (reading.problem !== undefined) ctx.warnOnce("config", reading.problem);
  state.ownerCheckedMs = ctx.clock.now();
  if (takeOwnership(ctx)) own(ctx, identity);
  else state.guest = true;
  // The tmp/ sweep and the prune read every mailbox folder: they wait for the first poll, off
  // the path of Pi's start (until Pi answers its first request, every millisecond shows).
  state.startChores = () => {
    rebuildAwaiting(ctx);
    sweep(ctx);
    pruneBoxes(ctx, reading.config.pruneAfterDays);
  };
  schedulePoll(ctx);
}

/** What only the process that owns the inbox does: the record, the watch, recovery and claims. */
function own(ctx: EngineContext, identity: SessionIdentity): void {
  const { state } = ctx;
  state.guest = false;
  loadAskLedger(ctx);
  writeOwnRecord(ctx);
  if (ctx.watch) {
    state.watch = ctx.watcher.watch(`${ctx.store.root}/${identity.address}/new`, (name) => {
      if (!state.closed) claimHinted(ctx, name);
    });
  }
  // Never inside the start call: listeners rebuild their state in their own session_start first.
  // Mail a crash left claimed but never shown is delivered before anything new is claimed.
  ctx.clock.defer(() => {
    if (!state.closed) recoverClaimed(ctx, false);
  });
}

function schedulePoll(ctx: EngineContext): void {
  ctx.state.poll = ctx.clock.setTimer(ctx.pollIntervalMs, () => poll(ctx));
}

function poll(ctx: EngineContext): void {
  const { state } = ctx;
  if (state.closed || !rootHolds(ctx)) return;
  state.polls++;
  recoverClaimed(ctx, false);
  retryStranded(ctx);
  retryOwedReplies(ctx);
  scanInbox(ctx);
  const chores = state.startChores;
  state.startChores = undefined;
  chores?.();
  if (state.journalDirty) writeJournal(ctx);
  checkWaitingTarget(ctx);
  refreshOwnRecord(ctx);
  checkOwner(ctx);
  if (state.polls % sweepEveryPolls === 0) sweep(ctx);
  schedulePoll(ctx);
}

function sweep(ctx: EngineContext): void {
  const address = ctx.state.identity?.address;
  if (address !== undefined) ctx.store.sweepTmp(address, ctx.clock.now(), tmpLeftoverAgeMs);
}

function checkWaitingTarget(ctx: EngineContext): void {
  const waiting = ctx.state.waiting;
  if (waiting !== undefined && findRunning(ctx, waiting.to) === undefined) waiting.finish({ kind: "target-gone" });
}

/** A guest tries to take the inbox over; an owner checks it still holds it. */
function checkOwner(ctx: EngineContext): void {
  const { state } = ctx;
  const now = ctx.clock.now();
  if (now - state.ownerCheckedMs < ownerCheckMs || state.identity === undefined) return;
  state.ownerCheckedMs = now;
  if (state.guest) {
    if (!takeOwnership(ctx)) return;
    ctx.notify("This process now holds this session's mailbox: mail to it is read here.", "info");
    own(ctx, state.identity);
    return;
  }
  if (stillOwner(ctx)) return;
  // Another process holds it now: stop claiming; what this one showed stays shown.
  state.guest = true;
  state.watch?.close();
  state.watch = undefined;
}
