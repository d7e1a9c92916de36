// The run: whether one is active, its hop count, the mail it read, and what a stop holds. Its
// settle (settle.ts) answers what it owes and hands back what is held.
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import { freshHops, type HopState, onInput, onMailEntered, onSettled } from "../hop-rules.js";
import { rememberedIdsMax } from "../limits.js";
import type { OwedMail } from "../settle-rules.js";
import type { AskLedger } from "./ask-ledger.js";
import type { Footer } from "./footer.js";

export interface Run {
  busy(): boolean;
  /** The turn's hop count, in effect now: the higher of the mailbox's own and the one another part
   * of the session holds (`peerHops`). */
  hops(): HopState;
  /** The mailbox's own count, without the other part's: what it tells that part. */
  ownHops(): number;
  /** A person, an RPC client or a command's prompt started or steered the turn. */
  input(): void;
  /** A run started; false when one was on already. */
  start(): boolean;
  /** Mail carrying `hops` entered the conversation (or a listener took it over). */
  mailEntered(hops: number): void;
  /** Mail for the model entered the conversation: a request or an ask is owed an answer at settle
   * (a message is owed nothing and is not kept: a flood of them must not grow the run's state). */
  noteRead(mail: OwedMail): void;
  hasRead(mailId: string): boolean;
  /** Read since the last settle (requests and asks). */
  read(): readonly OwedMail[];
  /** Requests held across stopped runs. */
  held(): readonly OwedMail[];
  heldCount(): number;
  /** The run settled: `held` is kept for the next, `dropped` was answered failed as never read,
   * and the turn begins afresh. */
  settled(held: OwedMail[], dropped: readonly string[]): void;
  /** Answered failed as never read by a stopped run. */
  wasDropped(mailId: string): boolean;
}

interface RunState {
  busy: boolean;
  hops: HopState;
  read: OwedMail[];
  /** At most heldRequestsMax (planSettle gives up the oldest). */
  held: OwedMail[];
  /** Mail a stopped run never read, already answered failed; if it still enters later, it is void. */
  dropped: BoundedIdSet;
}

export function createRun(parts: { ledger: AskLedger; footer: Footer; peerHops: () => number }): Run {
  const s: RunState = {
    busy: false,
    hops: freshHops,
    read: [],
    held: [],
    dropped: createBoundedIdSet(rememberedIdsMax),
  };
  return {
    busy: () => s.busy,
    hops() {
      const peer = parts.peerHops();
      return peer > s.hops.count ? { count: peer } : s.hops;
    },
    ownHops: () => s.hops.count,
    input() {
      s.hops = onInput(s.hops);
    },
    start() {
      if (s.busy) return false;
      s.busy = true;
      return true;
    },
    mailEntered(hops) {
      s.hops = onMailEntered(s.hops, hops);
    },
    noteRead(mail) {
      if (mail.kind === "message") return;
      s.read.push(mail);
      if (!parts.ledger.isAnswered(mail.id)) parts.footer.oweRead(mail.id);
    },
    hasRead: (mailId) => s.read.some((m) => m.id === mailId),
    read: () => s.read,
    held: () => s.held,
    heldCount: () => s.held.length,
    settled(held, dropped) {
      for (const id of dropped) s.dropped.add(id);
      s.held = held;
      s.read = [];
      s.hops = onSettled(s.hops);
      s.busy = false;
    },
    wasDropped: (mailId) => s.dropped.has(mailId),
  };
}
