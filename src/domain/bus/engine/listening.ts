// The listening watch: polls this session's inbox (watcher hints make it sooner), keeps
// what it announced so nothing is announced twice, and raises at most one turn per burst. Only the
// process that owns the session's record announces; each poll lists a slice of a huge inbox more.
import type { MailNotice } from "../../../ports/bus/bus-host.js";
import type { TimerHandle } from "../../../ports/shared/clock.js";
import type { WatchHandle } from "../../../ports/shared/watcher.js";
import { forgetOldest } from "../../shared/bounded-id-set.js";
import type { BusMessage } from "../bus-files.js";
import { announcedIdsMax, watchPageMax, watchPollMs } from "../limits.js";
import {
  buildNotice,
  type Listening,
  onNewMail,
  raiseAfterRun,
  splitAtHopLimit,
  type TurnState,
  turnHopsAfter,
} from "../listening-rules.js";
import type { BusContext } from "./context.js";
import { inboxTime } from "./inbox.js";

interface ListeningPart {
  /** The membership's id and mode, or undefined off the bus: arms or disarms the watch. */
  configure(id: string | undefined, mode: Listening): void;
  runStarted(): void;
  /** The hop count of the turn in progress: what a send now carries (the higher of the bus's own
   * and the one another part of the session holds). */
  turnHops(): number;
  /** The bus's own count, without the other part's: what it tells that part. */
  ownTurnHops(): number;
  runSettled(aborted: boolean): void;
  /** A prompt is starting: the mail not announced yet, as a next-turn notice (announced now). */
  promptStarting(): MailNotice | undefined;
  /** One poll now (a hint, the ticker, or the host asking). */
  poll(): void;
  /** Mail announced before (by this session before a reload): never announced again. */
  markAnnounced(ids: readonly string[]): void;
  close(): void;
}

interface WatchState {
  id: string | undefined;
  mode: Listening;
  turn: TurnState;
  /** Mail found while a turn could not be raised: one turn once the run settles. */
  afterRun: boolean;
  seq: number;
  /** Message ids announced and still on disk as far as the last full look could tell. */
  announced: Set<string>;
  /** Mail that came before a run the user stopped: no poll raises it, the next prompt reports it. */
  held: Set<string>;
  watch: WatchHandle | undefined;
  ticker: TimerHandle | undefined;
  /** Each poll of a listening session starts with this (the unread count). */
  looked: (id: string | undefined) => void;
}

/** The front of the inbox not announced yet, at most a page, reading only files it has not seen;
 * forgets announced ids that left the inbox. Files found unreadable are remembered too, so junk is
 * read once, not at every poll. */
function unannounced(ctx: BusContext, state: WatchState, withHeld: boolean): BusMessage[] {
  const { id, announced, held } = state;
  if (id === undefined) return [];
  // Mail held for the next prompt is skipped by a poll too: it must not fill the page.
  const skip = withHeld && held.size > 0 ? new Set([...announced, ...held]) : announced;
  if (!ownsRecord(ctx, id)) return [];
  const look = ctx.store.peekUnseen(id, watchPageMax, skip, inboxTime(ctx));
  if (look.isErr()) {
    ctx.warnOnce("watch", { kind: "store-failed", op: "watch", error: look.error });
    return [];
  }
  ctx.recovered("watch");
  // Until the inbox was listed whole, an id not seen yet may only not be listed yet.
  const onDisk = look.value.ids;
  if (look.value.complete) for (const known of [...announced]) if (!onDisk.has(known)) announced.delete(known);
  for (const junk of look.value.unreadableIds) announced.add(junk);
  return look.value.messages.map((entry) => entry.message);
}

/** One reader per id: a process whose record another process of this id has taken announces
 * nothing (the membership learns it at its next read or heartbeat and leaves the bus). A record
 * that cannot be read, or none, does not stop the watch: the heartbeat decides about those. */
function ownsRecord(ctx: BusContext, id: string): boolean {
  const checked = ctx.store.checkRecord(id, ctx.self);
  return checked.isErr() || checked.value.kind !== "changed";
}

function announce(state: WatchState, delivery: MailNotice["delivery"], messages: BusMessage[]): MailNotice {
  for (const message of messages) state.announced.add(message.id);
  forgetOldest(state.announced, announcedIdsMax);
  return buildNotice(delivery, ++state.seq, messages);
}

/** Mail at the hop limit does not wake this session: it is held for the next prompt someone else
 * starts, and the person is told once per burst. Returns the mail that may wake it. */
function holdAtHopLimit(ctx: BusContext, state: WatchState, fresh: BusMessage[]): BusMessage[] {
  // The limit is a settings file read: only when there is mail to judge, never at an idle poll.
  if (fresh.length === 0) return fresh;
  const limit = ctx.hopLimit();
  const { wake, held, heldHops } = splitAtHopLimit(fresh, limit);
  if (held.length === 0) return wake;
  for (const message of held) state.held.add(message.id);
  forgetOldest(state.held, announcedIdsMax);
  const fromLabels = [...new Set(held.map((m) => m.fromLabel))];
  ctx.host.warn({ kind: "hop-limit", fromLabels, hops: heldHops, limit });
  return wake;
}

/** One look: for a session that wakes, a turn raised now or once the run in progress settles;
 * then the person's unread count (after the wake, which it must not delay). */
function poll(ctx: BusContext, state: WatchState): void {
  if (!state.mode.armed) return;
  if (state.mode.wake) wakeIfDue(ctx, state);
  state.looked(state.id);
}

function wakeIfDue(ctx: BusContext, state: WatchState): void {
  const fresh = holdAtHopLimit(ctx, state, unannounced(ctx, state, true));
  if (fresh.length === 0) return;
  // Its person holds mail back (or refuses it): bus mail raises no turn either; it is reported
  // with the next prompt, as mail at the hop limit is.
  if (ctx.host.wakeHeld?.() === true) {
    for (const message of fresh) state.held.add(message.id);
    forgetOldest(state.held, announcedIdsMax);
    return;
  }
  const hostBusy = ctx.host.isIdle !== undefined && !ctx.host.isIdle();
  const action = hostBusy ? "after-run" : onNewMail(state.mode, state.turn);
  if (action === "after-run") state.afterRun = true;
  if (action !== "raise") return;
  state.turn.raised = true;
  state.turn.hops = turnHopsAfter(state.turn.hops, fresh);
  ctx.host.raiseTurn(announce(state, "wake", fresh));
}

/** A stopped run: the mail waiting now goes with the next prompt, not with the next poll. */
function holdForPrompt(ctx: BusContext, state: WatchState): void {
  if (!state.mode.armed || !state.mode.wake) return;
  for (const message of unannounced(ctx, state, true)) state.held.add(message.id);
  forgetOldest(state.held, announcedIdsMax);
}

function disarm(state: WatchState): void {
  state.watch?.close();
  state.ticker?.cancel();
  state.watch = undefined;
  state.ticker = undefined;
}

function arm(ctx: BusContext, state: WatchState, id: string): void {
  const tick = () => {
    state.ticker = ctx.clock.setTimer(watchPollMs, tick);
    poll(ctx, state);
  };
  // A watch on a folder that is not there yet hears nothing: the inbox is made before its first mail.
  const opened = ctx.store.openInbox(id);
  if (opened.isErr()) ctx.warnOnce("watch", { kind: "store-failed", op: "watch", error: opened.error });
  // Hints come one per file change (our own deletions too): a burst is one poll, on the next turn.
  let hinted = false;
  state.watch = ctx.watcher.watch(ctx.store.inboxPath(id), () => {
    if (hinted) return;
    hinted = true;
    ctx.clock.defer(() => {
      hinted = false;
      poll(ctx, state);
    });
  });
  state.ticker = ctx.clock.setTimer(watchPollMs, tick);
}

export function createListening(ctx: BusContext, looked: (id: string | undefined) => void): ListeningPart {
  const off: Listening = { armed: false, wake: false };
  const state: WatchState = {
    id: undefined,
    mode: off,
    turn: { busy: false, raised: false, hops: 0 },
    afterRun: false,
    seq: 0,
    announced: new Set(),
    held: new Set(),
    watch: undefined,
    ticker: undefined,
    looked,
  };
  return {
    configure(id, mode) {
      const moved = id !== state.id;
      state.id = id;
      state.mode = id === undefined ? off : { ...mode };
      if (moved || !state.mode.armed) disarm(state);
      if (id !== undefined && state.mode.armed && state.ticker === undefined) arm(ctx, state, id);
    },
    runStarted() {
      state.turn.busy = true;
    },
    turnHops: () => Math.max(state.turn.hops, ctx.host.peerTurnHops?.() ?? 0),
    ownTurnHops: () => state.turn.hops,
    runSettled(aborted) {
      state.turn = { busy: false, raised: false, hops: 0 };
      const pending = state.afterRun;
      state.afterRun = false;
      if (aborted) holdForPrompt(ctx, state);
      else if (pending && raiseAfterRun(aborted, state.mode)) poll(ctx, state);
    },
    promptStarting() {
      // A prompt the bus did not raise (a person, an RPC client) starts the count again; the mail
      // reported with it does not raise it: whoever started the turn chose to go on.
      state.turn.hops = 0;
      state.afterRun = false;
      state.held.clear();
      if (!state.mode.armed) return undefined;
      const fresh = unannounced(ctx, state, false);
      if (fresh.length === 0) return undefined;
      const notice = announce(state, "next-turn", fresh);
      const limit = ctx.hopLimit();
      const { held, heldHops } = splitAtHopLimit(fresh, limit);
      return held.length === 0 ? notice : { ...notice, atHopLimit: { hops: heldHops, limit } };
    },
    poll: () => poll(ctx, state),
    markAnnounced(ids) {
      for (const id of ids) state.announced.add(id);
      forgetOldest(state.announced, announcedIdsMax);
    },
    close() {
      disarm(state);
      state.id = undefined;
      state.mode = off;
      state.held.clear();
    },
  };
}
