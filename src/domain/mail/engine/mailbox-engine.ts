// One session's mailbox: the state machine of the spec, driven by its host's events and acting
// only through ports. A host (Pi, the simulator) calls these methods; the engine never calls back
// into the host except through AgentHost.
import type { Result } from "neverthrow";
import type { NoticeLevel } from "../../../ports/agent-host.js";
import type { StoreError } from "../../../ports/mail-store.js";
import { claimBatchMax, rememberedIdsMax, tmpLeftoverAgeMs } from "../../limits.js";
import { readConfig } from "../config.js";
import { freshHops, onInput, onMailEntered } from "../hop-rules.js";
import type { RunOutcome } from "../settle-rules.js";
import { type AskSignal, ask } from "./ask.js";
import { createBoundedIdSet } from "./bounded-id-set.js";
import { claimHinted, scanInbox } from "./claim.js";
import type {
  AskOutcome,
  EngineContext,
  EngineOptions,
  EngineState,
  InboundListener,
  SessionIdentity,
} from "./context.js";
import { recoverClaimed, settleJournal, settleQuiet, writeJournal } from "./inbox.js";
import { type ReplyError, replyToAsk, type SendError, type Sent, sendMessage, sendRequest } from "./outbox.js";
import { findRunning, type ListedSession, listSessions, removeOwnRecord, writeOwnRecord } from "./presence.js";
import { pruneBoxes } from "./prune.js";
import { settle } from "./settle.js";

export type { AskSignal } from "./ask.js";

export interface FooterCounts {
  pending: number;
  read: number;
  awaiting: number;
}

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
  /** Claims waiting mail now (message:scan, watcher hints, the poll). */
  scan(): void;
  identity(): SessionIdentity | undefined;
  list(): ListedSession[];
  request(to: string, body: string, via: "command" | "hook"): Result<Sent, SendError>;
  send(to: string, body: string): Result<Sent, SendError>;
  ask(
    to: string,
    body: string,
    signal: AskSignal | undefined,
  ): Promise<Result<{ sent: Sent; outcome: AskOutcome }, SendError>>;
  reply(askId: string, body: string): Result<Sent, ReplyError>;
  prune(): Result<number, StoreError>;
  footer(): FooterCounts;
  /** Whether the turn's hop count, in effect now. */
  hops(): number;
  /** Whether this mail was answered failed as never read by a stopped run. A host that still
   * delivers it later (Pi keeps its steering queue on an RPC abort) shows a notice instead. */
  wasDropped(mailId: string): boolean;
}

function initialState(): EngineState {
  return {
    identity: undefined,
    closed: false,
    busy: false,
    hops: freshHops,
    pending: new Map(),
    unread: new Map(),
    journalDirty: false,
    read: [],
    held: [],
    received: new Map(),
    answered: createBoundedIdSet(rememberedIdsMax),
    delivered: createBoundedIdSet(rememberedIdsMax),
    awaiting: createBoundedIdSet(rememberedIdsMax),
    abandonedAsks: createBoundedIdSet(rememberedIdsMax),
    dropped: createBoundedIdSet(rememberedIdsMax),
    waiting: undefined,
    asking: undefined,
    listeners: [],
    warned: new Set(),
    lastRecordText: undefined,
    watch: undefined,
    poll: undefined,
    ready: false,
    starting: false,
    scanning: false,
    rescan: false,
    claimedNames: createBoundedIdSet(2 * claimBatchMax),
    footerStale: false,
    footerShown: undefined,
    polls: 0,
    startChores: undefined,
  };
}

export function footerText(counts: FooterCounts): string | undefined {
  const parts = [
    counts.pending > 0 ? `${counts.pending} pending` : "",
    counts.read > 0 ? `${counts.read} read` : "",
    counts.awaiting > 0 ? `${counts.awaiting} awaiting` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? undefined : `✉ ${parts.join(" · ")}`;
}

export function createMailboxEngine(options: EngineOptions): MailboxEngine {
  const state = initialState();
  const ctx: EngineContext = {
    ...options,
    state,
    warnOnce(key: string, text: string, level: NoticeLevel = "warning") {
      if (state.warned.has(key) || state.warned.size > rememberedIdsMax) return;
      state.warned.add(key);
      options.host.notify(text, level);
    },
    refreshFooter() {
      if (state.closed) return;
      // A scan claims up to a batch of mail: one footer for all of it, when the scan ends.
      if (state.scanning) {
        state.footerStale = true;
        return;
      }
      state.footerStale = false;
      const text = footerText(counts());
      if (text === state.footerShown) return;
      state.footerShown = text;
      options.host.setStatus(text);
    },
    writeRecord: () => writeOwnRecord(ctx),
  };

  const counts = (): FooterCounts => ({
    pending: state.pending.size,
    read: state.read.filter((m) => m.kind !== "message" && !state.answered.has(m.id)).length + state.held.length,
    awaiting: state.awaiting.size,
  });

  const schedulePoll = () => {
    state.poll = options.clock.setTimer(options.pollIntervalMs, () => {
      if (state.closed) return;
      state.polls++;
      scanInbox(ctx);
      const chores = state.startChores;
      state.startChores = undefined;
      chores?.();
      if (state.journalDirty) writeJournal(ctx);
      checkWaitingTarget();
      if (state.polls % 240 === 0) sweep();
      schedulePoll();
    });
  };

  const sweep = () => {
    const address = state.identity?.address;
    if (address !== undefined) options.store.sweepTmp(address, options.clock.now(), tmpLeftoverAgeMs);
  };

  const checkWaitingTarget = () => {
    const waiting = state.waiting;
    if (waiting !== undefined && findRunning(ctx, waiting.to) === undefined) waiting.finish({ kind: "target-gone" });
  };

  // Mail a crash left claimed but never shown is delivered before anything new is claimed.
  const becomeReady = () => {
    if (state.ready) return;
    state.ready = true;
    recoverClaimed(ctx);
  };

  const start = (identity: SessionIdentity) => {
    const opened = options.store.openRoot().andThen(() => options.store.openBox(identity.address));
    if (opened.isErr()) {
      ctx.warnOnce(
        "open",
        `The mailbox is off for this session: ${opened.error.kind === "io" ? opened.error.message : `${opened.error.path} is not a real folder`}`,
        "error",
      );
      state.closed = true;
      return;
    }
    if (opened.value.openToOthers) {
      ctx.warnOnce(
        "open-folder",
        `This session's mailbox folder is open to other users. Run: chmod 700 ${opened.value.path}`,
      );
    }
    const reading = readConfig(options.config.read(), options.config.path);
    if (reading.problem !== undefined) ctx.warnOnce("config", reading.problem);
    writeOwnRecord(ctx);
    if (options.watch) {
      state.watch = options.watcher.watch(`${options.store.root}/${identity.address}/new`, (name) => {
        if (!state.closed) claimHinted(ctx, name);
      });
    }
    // Never inside the start call: listeners rebuild their state in their own session_start first.
    options.clock.defer(() => {
      if (state.closed) return;
      becomeReady();
      scanInbox(ctx);
    });
    // The tmp/ sweep and the prune read every mailbox folder: they wait for the first poll, off
    // the path of Pi's start (until Pi answers its first request, every millisecond shows).
    state.startChores = () => {
      sweep();
      pruneBoxes(ctx, reading.config.pruneAfterDays);
    };
    schedulePoll();
  };

  const engine: MailboxEngine = {
    sessionStarted(identity) {
      if (state.identity !== undefined || state.closed) return;
      state.identity = { ...identity };
      state.starting = true;
      try {
        start(identity);
      } finally {
        state.starting = false;
      }
      ctx.refreshFooter();
    },
    renamed(name) {
      if (state.identity === undefined || state.closed) return;
      state.identity.name = name;
      writeOwnRecord(ctx);
    },
    input() {
      state.hops = onInput(state.hops);
    },
    runStarted() {
      if (state.busy || state.closed) return;
      state.busy = true;
      writeOwnRecord(ctx);
    },
    messageEntered(mailId) {
      const mail = state.pending.get(mailId);
      if (mail === undefined) {
        // Quiet mail, or the answer an ask's tool result carried: nothing owed, only the journal.
        settleJournal(ctx, mailId, "read");
        return;
      }
      state.pending.delete(mailId);
      settleJournal(ctx, mailId, "read");
      state.hops = onMailEntered(state.hops, mail.hops);
      if (state.answered.has(mailId)) return;
      state.read.push({ id: mail.id, from: mail.from, kind: mail.kind });
      ctx.refreshFooter();
    },
    runSettled(outcome) {
      if (state.closed) return;
      settle(ctx, outcome);
      state.busy = false;
      writeOwnRecord(ctx);
      ctx.refreshFooter();
    },
    shutdown() {
      if (state.closed) return;
      state.waiting?.finish({ kind: "aborted" });
      // Idle, Pi has appended every quiet mail; during a run it may still hold some: keep those.
      if (!state.busy) settleQuiet(ctx);
      if (state.journalDirty) writeJournal(ctx);
      state.closed = true;
      state.watch?.close();
      state.poll?.cancel();
      removeOwnRecord(ctx);
      if (state.identity !== undefined) options.store.release(state.identity.address);
      options.host.setStatus(undefined);
    },
    onInbound(listener) {
      state.listeners.push(listener);
      return () => {
        state.listeners = state.listeners.filter((l) => l !== listener);
      };
    },
    scan() {
      // An explicit scan (message:scan) after start may run the start-up claim early, never inside it.
      if (state.identity !== undefined && !state.starting) becomeReady();
      scanInbox(ctx);
    },
    identity: () => (state.identity === undefined ? undefined : { ...state.identity }),
    list: () => listSessions(ctx),
    request: (to, body, via) => sendRequest(ctx, to, body, via),
    send: (to, body) => sendMessage(ctx, to, body),
    ask: (to, body, signal) => ask(ctx, to, body, signal),
    reply: (askId, body) => replyToAsk(ctx, askId, body),
    prune: () => pruneBoxes(ctx, undefined),
    footer: counts,
    hops: () => state.hops.count,
    wasDropped: (mailId) => state.dropped.has(mailId),
  };
  return engine;
}
