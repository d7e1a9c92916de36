// One session's mailbox: the state machine of the spec, driven by its host's events and acting
// only through ports. A host (Pi, the simulator) calls these methods; the engine never calls back
// into the host except through AgentHost. This facade only routes each event to the part that
// owns it; the parts hold the state and the logic.
import type { Result } from "neverthrow";
import type { Clock } from "../../../ports/shared/clock.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Watcher } from "../../../ports/shared/watcher.js";
import type { Address } from "../address.js";
import type { RunOutcome } from "../settle-rules.js";
import { type AskProgress, type AskResult, type AskSignal, createAsks } from "./ask.js";
import { createAskLedger } from "./ask-ledger.js";
import { createBacklog } from "./backlog.js";
import type {
  EngineContext,
  EngineOptions,
  EngineParts,
  InboundListener,
  MailContext,
  SessionIdentity,
} from "./context.js";
import { createDelivery } from "./delivery.js";
import { createFooter, type FooterCounts } from "./footer.js";
import { createIntake } from "./intake.js";
import { createJournal } from "./journal.js";
import { createLifecycle } from "./lifecycle.js";
import { createNotices } from "./notices.js";
import { createOutbox, type ReplyError, type SendError, type Sent } from "./outbox.js";
import { createOwedReplies } from "./owed-replies.js";
import { createOwnership } from "./ownership.js";
import { createPoll } from "./poll.js";
import { createPresence, type ListedSession } from "./presence.js";
import { pruneBoxes } from "./prune.js";
import { createRun } from "./run.js";
import { createSessionCell } from "./session-cell.js";
import { runSettled } from "./settle.js";

export type { AskProgress, AskSignal } from "./ask.js";

export interface MailboxEngine {
  sessionStarted(identity: SessionIdentity): void;
  renamed(name: string | undefined): void;
  /** A person, an RPC client or a command's prompt started or steered the turn. */
  input(): void;
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
  identity(): SessionIdentity | undefined;
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
  footer(): FooterCounts;
  /** Whether the turn's hop count, in effect now. */
  hops(): number;
  /** Whether this mail was answered failed as never read by a stopped run. A host that still
   * delivers it later (Pi keeps its steering queue on an RPC abort) shows a notice instead. */
  wasDropped(mailId: string): boolean;
}

export function createMailboxEngine(options: EngineOptions): MailboxEngine {
  const ctx = wire(options);
  const { event } = ctx;
  return {
    sessionStarted: (identity) => event(() => ctx.lifecycle.start(identity)),
    renamed: (name) => event(() => ctx.lifecycle.rename(name)),
    input: () => event(() => ctx.run.input()),
    runStarted: () =>
      event(() => {
        if (!ctx.session.closed() && ctx.run.start()) ctx.presence.write();
      }),
    messageEntered: (mailId) => event(() => ctx.delivery.entered(mailId)),
    runSettled: (outcome) => event(() => runSettled(ctx, ctx, outcome)),
    shutdown: () => event(() => ctx.lifecycle.shutdown()),
    onInbound: (listener) => ctx.delivery.onInbound(listener),
    scan: () => event(() => ctx.intake.scanNow()),
    identity: () => ctx.session.identity(),
    list: () => ctx.presence.list(),
    resolve: (to) => ctx.outbox.resolve(to).map((resolved) => resolved.address),
    request: (to, body, via) => event(() => ctx.outbox.request(to, body, via)),
    send: (to, body) => event(() => ctx.outbox.send(to, body)),
    ask: (to, body, signal, onProgress) => event(() => ctx.asks.ask(to, body, signal, onProgress)),
    reply: (askId, body) => event(() => ctx.outbox.reply(askId, body)),
    prune: () => event(() => pruneBoxes(ctx, undefined)),
    footer: () => ctx.footer.counts(),
    hops: () => ctx.run.hops().count,
    wasDropped: (mailId) => ctx.run.wasDropped(mailId),
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

/** The parts find each other through the context when an event comes, never while they are
 * created: each is created once, with the ports, before the first event. */
function wire(options: EngineOptions): EngineContext {
  const session = createSessionCell();
  const events = eventsOf(options, () => ctx.footer.refresh());
  const base: MailContext = { ...options, ...events, session, notices: createNotices(options.host) };
  const ctx = base as EngineContext;
  // Made in order: each is given the parts it uses, made before it.
  const ownership = createOwnership(base);
  const footer = createFooter(base, { pending: () => ctx.delivery.pendingCount(), held: () => ctx.run.heldCount() });
  const ledger = createAskLedger(base, { ownership, footer });
  const run = createRun({ ledger, footer });
  const backlog = createBacklog();
  const journal = createJournal(base, backlog);
  const delivery = createDelivery(ctx);
  const presence = createPresence(base, {
    ownership,
    status: { busy: () => run.busy(), waitingOn: () => ctx.asks.waitingOn() },
  });
  const parts: EngineParts = {
    lifecycle: createLifecycle(ctx, session),
    ownership,
    poll: createPoll(ctx),
    intake: createIntake(base, {
      journal,
      backlog,
      ownership,
      delivery,
      checkOwner: () => ctx.poll.checkOwner(),
    }),
    backlog,
    journal,
    delivery,
    run,
    outbox: createOutbox(ctx),
    owed: createOwedReplies(ctx),
    asks: createAsks(ctx),
    ledger,
    presence,
    footer,
  };
  return Object.assign(ctx, parts);
}
