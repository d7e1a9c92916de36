// A session's mailbox from start to shutdown. A start that fails (a read-only root, a full disk, a
// folder in the way) is retried until it succeeds or the session ends: the mailbox never stays off
// for a cause that went away. Writes who this session is and whether it is open (the session cell),
// and owns its watch.
import type { TimerHandle } from "../../../ports/shared/clock.js";

import type { StoreError } from "../../../ports/shared/store-error.js";
import type { WatchHandle } from "../../../ports/shared/watcher.js";
import { readConfig } from "../config.js";
import { startRetryMs } from "../limits.js";
import type { MailMode } from "../running-record.js";
import { describeStoreError } from "../store-errors.js";
import type { AskLedger } from "./ask-ledger.js";
import type { MailContext } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Footer } from "./footer.js";
import type { Intake } from "./intake.js";
import type { Journal } from "./journal.js";
import type { OwedReplies } from "./owed-replies.js";
import type { Ownership } from "./ownership.js";
import type { Poll } from "./poll.js";
import type { Presence } from "./presence.js";
import type { Run } from "./run.js";
import type { MailIdentity, NameChange, SessionCellWriter } from "./session-cell.js";
import type { Waits } from "./waits.js";

export interface Lifecycle {
  start(identity: MailIdentity): void;
  rename(change: NameChange): void;
  /** What its person lets reach the session: written into its record at once; an accept claims
   * everything held back. */
  setMailMode(mode: MailMode): void;
  shutdown(): void;
  /** This process holds its inbox now (taken over from a twin): the record, the watch, recovery. */
  owned(): void;
  /** Another process holds the inbox now: this one stops watching it. */
  disowned(): void;
  /** The mail root is no longer the folder opened at start: stops as shutdown does, and says why. */
  halt(error: StoreError): void;
}

interface LifecycleParts {
  poll: Poll;
  intake: Intake;
  owed: OwedReplies;
  journal: Journal;
  presence: Presence;
  ownership: Ownership;
  waits: Waits;
  ledger: AskLedger;
  footer: Footer;
  run: Run;
  delivery: Delivery;
}

/** What the lifecycle's functions reach: the ports and the parts its factory was given. */
type LifecycleContext = MailContext & LifecycleParts;

interface LifecycleState {
  cell: SessionCellWriter;
  /** The identity of a start whose open failed, retried until it opens. */
  opening: MailIdentity | undefined;
  /** An open failed since the last success: its success is told. */
  openFailed: boolean;
  openRetry: TimerHandle | undefined;
  watch: WatchHandle | undefined;
}

export function createLifecycle(mail: MailContext, cell: SessionCellWriter, parts: LifecycleParts): Lifecycle {
  const s: LifecycleState = { cell, opening: undefined, openFailed: false, openRetry: undefined, watch: undefined };
  const ctx: LifecycleContext = { ...mail, ...parts };
  return {
    start: (identity) => start(ctx, s, identity),
    rename: (change) => rename(ctx, s, change),
    setMailMode(mode) {
      s.cell.setMailMode(mode);
      if (s.cell.address() === undefined || s.cell.closed()) return;
      ctx.presence.write();
      if (mode === "accept") ctx.intake.scan(true);
    },
    shutdown: () => shutdown(ctx, s),
    owned: () => own(ctx, s),
    disowned() {
      s.watch?.close();
      s.watch = undefined;
    },
    halt: (error) => halt(ctx, s, error),
  };
}

function start(ctx: LifecycleContext, s: LifecycleState, identity: MailIdentity): void {
  if (s.cell.address() !== undefined || s.opening !== undefined || s.cell.closed()) return;
  s.cell.setStarting(true);
  try {
    openMailbox(ctx, s, { ...identity });
  } finally {
    s.cell.setStarting(false);
  }
}

function rename(ctx: LifecycleContext, s: LifecycleState, change: NameChange): void {
  if (s.opening !== undefined) Object.assign(s.opening, change);
  if (s.cell.address() === undefined || s.cell.closed()) return;
  s.cell.renamed(change);
  ctx.presence.write();
}

/** Opens the root and this session's box, then begins; on failure, says so once and tries again
 * every startRetryMs. Until it opens, the session has no identity: every send is refused as "the
 * mailbox is not running", and nothing is claimed. */
function openMailbox(ctx: LifecycleContext, s: LifecycleState, identity: MailIdentity): void {
  s.opening = identity;
  const opened = ctx.store.openRoot().andThen(() => ctx.store.openBox(identity.address));
  if (opened.isErr()) {
    const notice = { kind: "mailbox-off", error: opened.error, retryMs: startRetryMs } as const;
    ctx.notices.once(`open:${describeStoreError(opened.error)}`, notice);
    s.openFailed = true;
    s.openRetry = ctx.clock.setTimer(startRetryMs, () => {
      s.openRetry = undefined;
      if (!s.cell.closed() && s.opening !== undefined) openMailbox(ctx, s, s.opening);
    });
    return;
  }
  if (s.openFailed) ctx.notices.tell({ kind: "mailbox-on" });
  s.opening = undefined;
  s.openFailed = false;
  s.cell.opened(identity);
  if (opened.value.openToOthers) ctx.notices.once("open-folder", { kind: "folder-open", path: opened.value.path });
  begin(ctx, s);
}

function begin(ctx: LifecycleContext, s: LifecycleState): void {
  const reading = readConfig(ctx.config.read(), ctx.config.path);
  if (reading.problem !== undefined) ctx.notices.once("config", { kind: "config", problem: reading.problem });
  if (ctx.ownership.start()) own(ctx, s);
  ctx.poll.begin(reading.config.pruneAfterDays);
}

/** What only the process that owns the inbox does: the record, the watch, recovery and claims. */
function own(ctx: LifecycleContext, s: LifecycleState): void {
  const address = s.cell.address();
  if (address === undefined) return;
  ctx.ledger.load();
  ctx.presence.write();
  if (ctx.watch) {
    s.watch = ctx.watcher.watch(`${ctx.store.root}/${address}/new`, (name) => {
      if (!s.cell.closed()) ctx.intake.hinted(name);
    });
  }
  // Never inside the start call: listeners rebuild their state in their own session_start first.
  // Mail a crash left claimed but never shown is delivered before anything new is claimed.
  ctx.clock.defer(() => {
    if (!s.cell.closed()) ctx.intake.recover(false);
  });
}

function shutdown(ctx: LifecycleContext, s: LifecycleState): void {
  if (s.cell.closed()) return;
  // Answers a full disk kept owed get one last try: they live in memory, and go with the session.
  ctx.owed.retry();
  ctx.waits.abort();
  // Idle, Pi has appended every quiet mail; during a run it may still hold some: keep those.
  if (!ctx.run.busy()) ctx.delivery.settleQuiet();
  ctx.journal.flush();
  s.cell.close();
  s.watch?.close();
  ctx.poll.cancel();
  s.openRetry?.cancel();
  ctx.presence.remove();
  ctx.ownership.release();
  const address = s.cell.address();
  if (address !== undefined) ctx.store.release(address);
  ctx.footer.clear();
}

function halt(ctx: LifecycleContext, s: LifecycleState, error: StoreError): void {
  s.cell.close();
  s.watch?.close();
  ctx.poll.cancel();
  ctx.waits.abort();
  const address = s.cell.address();
  if (address !== undefined) ctx.store.release(address);
  ctx.footer.clear();
  ctx.notices.tell({ kind: "mailbox-stopped", error });
}
