// One session's mailbox: the state machine of the spec, driven by its host's events and acting
// only through ports. A host (Pi, the simulator) calls these methods; the engine never calls back
// into the host except through AgentHost.
import type { Result } from "neverthrow";
import type { NoticeLevel } from "../../../ports/mail/agent-host.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { createBoundedIdSet } from "../../shared/bounded-id-set.js";
import { sanitizeField } from "../../shared/text/sanitize.js";
import type { Address } from "../address.js";
import { freshHops, onInput, onMailEntered } from "../hop-rules.js";
import { claimedNamesMax, noticeCharsMax, rememberedIdsMax } from "../limits.js";
import type { RunOutcome } from "../settle-rules.js";
import { type AskProgress, type AskSignal, ask } from "./ask.js";
import type {
  AskOutcome,
  EngineContext,
  EngineOptions,
  EngineState,
  InboundListener,
  SessionIdentity,
} from "./context.js";
import { noteRead, settleJournal, settleQuiet, writeJournal } from "./delivery.js";
import { recoverClaimed, scanInbox } from "./intake.js";
import { beginSession } from "./lifecycle.js";
import {
  type ReplyError,
  replyToAsk,
  resolveRecipient,
  type SendError,
  type Sent,
  sendMessage,
  sendRequest,
} from "./outbox.js";
import { releaseOwnership } from "./ownership.js";
import { type ListedSession, listSessions, removeOwnRecord, writeOwnRecord } from "./presence.js";
import { pruneBoxes } from "./prune.js";
import { settle } from "./settle.js";

export type { AskProgress, AskSignal } from "./ask.js";

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
    stranded: new Map(),
    recovering: undefined,
    queue: [],
    listingTruncated: false,
    drainScheduled: false,
    opening: undefined,
    guest: false,
    ownerToken: undefined,
    ownerText: undefined,
    ownerCheckedMs: 0,
    openFailed: false,
    openRetry: undefined,
    journalDirty: false,
    journalWriteScheduled: false,
    read: [],
    readOwed: new Set(),
    held: [],
    owedReplies: [],
    received: new Map(),
    askLedger: { open: new Map(), answered: [] },
    answered: createBoundedIdSet(rememberedIdsMax),
    delivered: createBoundedIdSet(rememberedIdsMax),
    awaiting: createBoundedIdSet(rememberedIdsMax),
    abandonedAsks: createBoundedIdSet(rememberedIdsMax),
    dropped: createBoundedIdSet(rememberedIdsMax),
    waiting: undefined,
    asking: undefined,
    listeners: [],
    senders: new Map(),
    hiddenNamed: 0,
    warned: new Set(),
    lastRecordText: undefined,
    watch: undefined,
    poll: undefined,
    starting: false,
    scanning: false,
    rescan: false,
    claimedNames: createBoundedIdSet(claimedNamesMax),
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
      ctx.notify(text, level);
    },
    // Notices name file names, paths and errors a peer can shape: none reaches the UI raw.
    notify: (text, level) => options.host.notify(sanitizeField(text, noticeCharsMax), level),
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
    read: state.readOwed.size + state.held.length,
    awaiting: state.awaiting.size,
  });

  const engine: MailboxEngine = {
    sessionStarted(identity) {
      if (state.identity !== undefined || state.opening !== undefined || state.closed) return;
      state.starting = true;
      try {
        beginSession(ctx, { ...identity });
      } finally {
        state.starting = false;
      }
      ctx.refreshFooter();
    },
    renamed(name) {
      if (state.opening !== undefined) state.opening.name = name;
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
      noteRead(ctx, { id: mail.id, from: mail.from, kind: mail.kind });
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
      state.openRetry?.cancel();
      removeOwnRecord(ctx);
      releaseOwnership(ctx);
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
      // An explicit scan (message:scan) after start may run the start-up claim early, never inside it;
      // it claims everything waiting before it returns.
      if (state.identity === undefined || state.starting) return;
      recoverClaimed(ctx, true);
      scanInbox(ctx, true);
    },
    identity: () => (state.identity === undefined ? undefined : { ...state.identity }),
    list: () => listSessions(ctx),
    resolve: (to) => resolveRecipient(ctx, to).map((resolved) => resolved.address),
    request: (to, body, via) => sendRequest(ctx, to, body, via),
    send: (to, body) => sendMessage(ctx, to, body),
    ask: (to, body, signal, onProgress) => ask(ctx, to, body, signal, onProgress),
    reply: (askId, body) => replyToAsk(ctx, askId, body),
    prune: () => pruneBoxes(ctx, undefined),
    footer: counts,
    hops: () => state.hops.count,
    wasDropped: (mailId) => state.dropped.has(mailId),
  };
  return engine;
}
