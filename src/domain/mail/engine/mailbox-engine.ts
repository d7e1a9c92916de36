// One session's mailbox: the state machine of the spec, driven by its host's events and acting
// only through ports. A host (Pi, the simulator) calls these methods; the engine never calls back
// into the host except through AgentHost. This file makes the parts, each given the parts it uses,
// in an order where every part exists before the parts that use it, and routes each event to the
// part or event function that owns it. Every event ends with one refresh of the footer.
import type { Result } from "neverthrow";
import type { Clock } from "../../../ports/shared/clock.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Watcher } from "../../../ports/shared/watcher.js";
import type { Address } from "../address.js";
import type { MailMode } from "../running-record.js";
import type { RunOutcome } from "../settle-rules.js";
import { type AskProgress, type AskResult, type AskSignal, askAndWait } from "./ask.js";
import { createAskLedger } from "./ask-ledger.js";
import { createBacklog } from "./backlog.js";
import type { EngineOptions, InboundListener, MailContext, MailIdentity } from "./context.js";
import { createDelivery } from "./delivery.js";
import { createFooter, type FooterCounts } from "./footer.js";
import { createIntake } from "./intake.js";
import { createJournal } from "./journal.js";
import { createLifecycle, type Lifecycle } from "./lifecycle.js";
import { createNotices } from "./notices.js";
import { createOutbox, type ReplyError, type SendError, type Sent } from "./outbox.js";
import { createOwedReplies } from "./owed-replies.js";
import { createOwnership } from "./ownership.js";
import { createPoll } from "./poll.js";
import { createPresence, type ListedSession } from "./presence.js";
import { judgeBoxes, type PruneVerdict, pruneBoxes } from "./prune.js";
import { createRun } from "./run.js";
import { type CancelError, cancelSent, listSent, queuedTo, type SentItem } from "./sent.js";
import { createSessionCell } from "./session-cell.js";
import { runSettled } from "./settle.js";
import { createWaits } from "./waits.js";

export type { AskProgress, AskSignal } from "./ask.js";

export interface MailboxEngine {
  sessionStarted(identity: MailIdentity): void;
  renamed(name: string | undefined): void;
  /** This session's label on the bus changed (undefined: it left the bus). */
  relabeled(label: string | undefined): void;
  /** What its person lets reach the session: everything, nothing for now (held back in new/, replies
   * excepted), or nothing (senders are refused at once). */
  setMailMode(mode: MailMode): void;
  mailMode(): MailMode;
  /** A person, an RPC client or a command's prompt started or steered the turn. */
  input(): void;
  /** The hop count of the turn in progress as the mailbox counts it (without the bus's). */
  turnHops(): number;
  runStarted(): void;
  /** Mail with this id entered the conversation (as a message, or as the result of the ask it
   * answers): it counts as read. */
  messageEntered(mailId: string): void;
  runSettled(outcome: RunOutcome): void;
  shutdown(): void;
  onInbound(listener: InboundListener): () => void;
  /** Claims and emits everything waiting now, before it returns (message:scan): true when it did,
   * false when it could not (the mailbox not open, a twin process, called from inside a claim or
   * the start, the claim window full), and then the rest comes with a later claim. */
  scan(): boolean;
  identity(): MailIdentity | undefined;
  list(): ListedSession[];
  /** Resolves a typed recipient as a send does (only the records that could match are judged). */
  resolve(to: string): Result<Address, SendError>;
  request(to: string, body: string, via: "command" | "hook"): Result<Sent, SendError>;
  send(to: string, body: string): Result<Sent, SendError>;
  /** `onProgress` hears whom the ask waits on and for how long: at once, then every askProgressIntervalMs. */
  ask(
    to: string,
    body: string,
    signal: AskSignal | undefined,
    onProgress?: (progress: AskProgress) => void,
  ): Promise<AskResult>;
  reply(askId: string, body: string): Result<Sent, ReplyError>;
  prune(): Result<number, StoreError>;
  /** `/mailbox prune`'s rules with each folder's verdict and why; on a dry run nothing is removed. */
  pruneVerdicts(dryRun: boolean): Result<PruneVerdict[], StoreError>;
  /** The newest mail this session sent, oldest first, each with the state the files show now. */
  sent(): SentItem[];
  /** The same for another session's address (a shell following what a session sent). */
  sentBy(address: Address): SentItem[];
  /** How many of this session's newest sent mail each recipient has not taken yet. */
  queuedTo(): Map<Address, number>;
  /** Withdraws a request or message (by id or an id prefix of 8 or more) while it is queued. */
  cancel(id: string): Result<SentItem, CancelError>;
  footer(): FooterCounts;
  /** Whether the turn's hop count, in effect now. */
  hops(): number;
  /** Whether this mail was answered failed as never read by a stopped run. A host that still
   * delivers it later (Pi keeps its steering queue on an RPC abort) shows a notice instead. */
  wasDropped(mailId: string): boolean;
}

export function createMailboxEngine(options: EngineOptions): MailboxEngine {
  const { ctx, p } = wire(options);
  const { event } = ctx;
  return {
    sessionStarted: (identity) => event(() => p.lifecycle.start(identity)),
    renamed: (name) => event(() => p.lifecycle.rename({ name })),
    relabeled: (label) => event(() => p.lifecycle.rename({ label })),
    setMailMode: (mode) => event(() => p.lifecycle.setMailMode(mode)),
    mailMode: () => ctx.session.mailMode(),
    input: () => event(() => p.run.input()),
    turnHops: () => p.run.ownHops(),
    runStarted: () =>
      event(() => {
        if (!ctx.session.closed() && p.run.start()) p.presence.write();
      }),
    messageEntered: (mailId) => event(() => p.delivery.entered(mailId)),
    runSettled: (outcome) => event(() => runSettled(ctx, p, outcome)),
    shutdown: () => event(() => p.lifecycle.shutdown()),
    onInbound: (listener) => p.delivery.onInbound(listener),
    scan: () => event(() => p.intake.scanNow()),
    identity: () => ctx.session.identity(),
    list: () => p.presence.list(),
    resolve: (to) => p.outbox.resolve(to).map((resolved) => resolved.address),
    request: (to, body, via) => event(() => p.outbox.request(to, body, via)),
    send: (to, body) => event(() => p.outbox.send(to, body)),
    ask: (to, body, signal, onProgress) => event(() => askAndWait(ctx, p, to, body, signal, onProgress)),
    reply: (askId, body) => event(() => p.outbox.reply(askId, body)),
    prune: () => event(() => pruneBoxes(ctx, p.presence, undefined)),
    pruneVerdicts: (dryRun) => event(() => judgeBoxes(ctx, p.presence, { olderThanDays: undefined, dryRun })),
    sent: () => listSent(ctx, p.presence),
    sentBy: (address) => listSent(ctx, p.presence, address),
    queuedTo: () => queuedTo(ctx),
    cancel: (id) => event(() => cancelSent(ctx, p, id)),
    footer: () => p.footer.counts(),
    hops: () => p.run.hops().count,
    wasDropped: (mailId) => p.run.wasDropped(mailId),
  };
}

/** Every way into the engine is an event: a call of the facade, or a callback of the clock or the
 * watcher. When the outermost one ends, the footer is shown (if it changed): once per event, never
 * from inside a part. */
function eventsOf(options: EngineOptions, refresh: () => void) {
  let depth = 0;
  const event = <T>(fn: () => T): T => {
    depth++;
    try {
      return fn();
    } finally {
      if (--depth === 0) refresh();
    }
  };
  const clock: Clock = {
    now: () => options.clock.now(),
    monotonic: () => options.clock.monotonic(),
    setTimer: (ms, fn) => options.clock.setTimer(ms, () => event(fn)),
    defer: (fn) => options.clock.defer(() => event(fn)),
  };
  const watcher: Watcher = { watch: (dir, onHint) => options.watcher.watch(dir, (name) => event(() => onHint(name))) };
  return { event, clock, watcher };
}

/** The parts, each made once, before the first event, with the parts it uses (made before it). The
 * footer's counts, the presence's status and the intake's owner check are read through callbacks:
 * the parts that keep them are made later, and are there by the first event. */
function wire(options: EngineOptions) {
  const session = createSessionCell();
  const events = eventsOf(options, () => footer.refresh());
  const ctx: MailContext = { ...options, ...events, session, notices: createNotices(options.host) };
  const ownership = createOwnership(ctx);
  const footer = createFooter(ctx, {
    pending: () => delivery.pendingCount(),
    held: () => run.heldCount(),
    heldBack: () => intake.heldBack(),
  });
  const waits = createWaits();
  const backlog = createBacklog();
  const ledger = createAskLedger(ctx, { ownership, footer });
  const journal = createJournal(ctx, backlog);
  const run = createRun({ ledger, footer, peerHops: () => ctx.host.peerTurnHops?.() ?? 0 });
  const presence = createPresence(ctx, {
    ownership,
    status: { busy: () => run.busy(), waitingOn: waits.waitingOn, hops: () => run.hops().count },
  });
  const owed = createOwedReplies(ctx, { ledger, journal, footer, presence });
  const delivery = createDelivery(ctx, { journal, ledger, run, waits, owed, presence, footer });
  const intake = createIntake(ctx, { journal, backlog, ownership, delivery, checkOwner: () => poll.checkOwner() });
  const outbox = createOutbox(ctx, { presence, ledger, run, waits, delivery, footer });
  const poll = createPoll(ctx, {
    intake,
    owed,
    journal,
    presence,
    ownership,
    waits,
    backlog,
    ledger,
    footer,
    owned: () => lifecycle.owned(),
    disowned: () => lifecycle.disowned(),
    halt: (error) => lifecycle.halt(error),
  });
  const lifecycle: Lifecycle = createLifecycle(ctx, session, {
    poll,
    intake,
    owed,
    journal,
    presence,
    ownership,
    waits,
    ledger,
    footer,
    run,
    delivery,
  });
  return {
    ctx,
    p: { ownership, footer, waits, backlog, ledger, journal, run, presence, owed, delivery, intake, outbox, lifecycle },
  };
}
