// Handing claimed mail to listeners and the model, exactly once. Owns the mail injected and not
// yet read, the ids already delivered, and the message:inbound listeners.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Envelope } from "../envelope.js";
import { frameMail, type QuotedRequest, type Sender } from "../framing.js";
import { rememberedIdsMax } from "../limits.js";
import type { AskLedger } from "./ask-ledger.js";
import type { InboundListener, InboundMail, MailContext, PendingMail } from "./context.js";
import type { Footer } from "./footer.js";
import type { Journal } from "./journal.js";
import type { OwedReplies } from "./owed-replies.js";
import type { Presence } from "./presence.js";
import type { Run } from "./run.js";
import type { Waits } from "./waits.js";

export interface Delivery {
  /** Delivers what a claim or a read from cur/ brought, unless it was delivered already. */
  accept(outcome: ClaimOutcome, senders: Map<string, Sender>, recovering: boolean): void;
  /** Mail with this id entered the conversation: it counts as read. */
  entered(mailId: string): void;
  onInbound(listener: InboundListener): () => void;
  /** Quiet mail (unread, never pending) is in the session by now: Pi appends it at once when idle
   * and flushes what it held before a run settles. Dropped from the journal lazily, like read mail. */
  settleQuiet(): void;
  /** Injected, not yet read, in injection order. */
  pending(): PendingMail[];
  pendingCount(): number;
  /** A settle answered it unread: it is owed nothing more. */
  drop(mailId: string): void;
  wasDelivered(mailId: string): boolean;
}

interface DeliveryState {
  pending: Map<string, PendingMail>;
  /** Envelope ids already shown or handed over: never delivered twice. */
  delivered: BoundedIdSet;
  listeners: InboundListener[];
}

interface DeliveryParts {
  journal: Journal;
  ledger: AskLedger;
  run: Run;
  waits: Waits;
  owed: OwedReplies;
  presence: Presence;
  footer: Footer;
}

/** What the delivery's functions reach: the ports and the parts its factory was given. */
type DeliveryContext = MailContext & DeliveryParts;

export function createDelivery(mail: MailContext, parts: DeliveryParts): Delivery {
  const ctx: DeliveryContext = { ...mail, ...parts };
  const s: DeliveryState = { pending: new Map(), delivered: createBoundedIdSet(rememberedIdsMax), listeners: [] };
  return {
    accept: (outcome, senders, recovering) => accept(ctx, s, outcome, senders, recovering),
    entered: (mailId) => entered(ctx, s, mailId),
    onInbound(listener) {
      s.listeners.push(listener);
      return () => {
        s.listeners = s.listeners.filter((l) => l !== listener);
      };
    },
    settleQuiet() {
      // Mail a stopped run dropped whose failed answer is still owed stays journaled until it is written.
      const owed = ctx.owed.owedIds();
      for (const id of ctx.journal.unreadIds()) {
        if (!s.pending.has(id) && !owed.has(id)) ctx.journal.settle(id, "read");
      }
    },
    pending: () => [...s.pending.values()],
    pendingCount: () => s.pending.size,
    drop: (mailId) => void s.pending.delete(mailId),
    wasDelivered: (mailId) => s.delivered.has(mailId),
  };
}

/** Mail carrying `hops` entered the turn: a busy session's record shows a count that rose. */
function countHops(ctx: DeliveryContext, hops: number): void {
  const before = ctx.run.hops().count;
  ctx.run.mailEntered(hops);
  if (ctx.run.busy() && ctx.run.hops().count !== before) ctx.presence.write();
}

function entered(ctx: DeliveryContext, s: DeliveryState, mailId: string): void {
  const mail = s.pending.get(mailId);
  // Quiet mail, or the answer an ask's tool result carried: nothing owed, only the journal.
  ctx.journal.settle(mailId, "read");
  if (mail === undefined) return;
  s.pending.delete(mailId);
  countHops(ctx, mail.hops);
  if (ctx.ledger.isAnswered(mailId)) return;
  ctx.run.noteRead({ id: mail.id, from: mail.from, kind: mail.kind });
}

function accept(
  ctx: DeliveryContext,
  s: DeliveryState,
  outcome: ClaimOutcome,
  senders: Map<string, Sender>,
  recovering: boolean,
): void {
  switch (outcome.kind) {
    case "gone":
      return;
    case "unread":
      // Kept journaled by recovery and read again from cur/: nothing to deliver yet.
      return;
    case "set-aside":
      if (!recovering) {
        const notice = { kind: "set-aside", path: outcome.path, reason: outcome.reason } as const;
        ctx.notices.once(`aside:${outcome.path}`, notice);
      }
      return;
    case "invalid": {
      const notice = { kind: "invalid-envelope", path: outcome.path, error: outcome.error } as const;
      if (!recovering) ctx.notices.once(`bad:${outcome.path}`, notice);
      return;
    }
    case "claimed": {
      const envelope = outcome.envelope;
      // Shown before the crash, or answered already (a crash after its answer was written, before
      // the journal dropped it): never shown, nor answered, a second time.
      if (recovering && (ctx.host.hasShown(envelope.id) || ctx.ledger.isAnswered(envelope.id))) {
        s.delivered.add(envelope.id);
        return;
      }
      deliver(ctx, s, envelope, outcome.name, outcome.path, senders);
      return;
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown claim outcome ${String(never)}`);
    }
  }
}

function deliver(
  ctx: DeliveryContext,
  s: DeliveryState,
  envelope: Envelope,
  name: string,
  path: string,
  senders: Map<string, Sender>,
): void {
  if (envelope.to !== ctx.session.address()) {
    ctx.notices.once(`to:${path}`, { kind: "misaddressed", path, to: envelope.to });
    return;
  }
  if (s.delivered.has(envelope.id)) return;
  s.delivered.add(envelope.id);
  if (envelope.kind === "reply") {
    deliverReply(ctx, s, envelope, name, path, senders);
    return;
  }
  const owed = { id: envelope.id, from: envelope.from, kind: envelope.kind };
  ctx.ledger.remember(owed);
  if (takenOver(ctx, s, envelope, path, [])) {
    // A takeover still arms the reply and counts as read.
    ctx.run.noteRead(owed);
    return;
  }
  const sender = ctx.presence.senderOf(owed.from, senders);
  const content = frameMail({ envelope, path, sender, quoted: [], askStoppedWaiting: false });
  s.pending.set(envelope.id, { ...owed, hops: envelope.hops });
  ctx.journal.track(envelope.id, name);
  inject(ctx, s, envelope, path, content, { triggerTurn: true, deliverAs: "steer" });
}

function deliverReply(
  ctx: DeliveryContext,
  s: DeliveryState,
  envelope: Envelope,
  name: string,
  path: string,
  senders: Map<string, Sender>,
): void {
  for (const id of envelope.in_reply_to) ctx.footer.unawait(id);
  const waiting = ctx.waits.waiting();
  // Only the ask's target answers it (a loop guard, not authentication): a reply from anyone else
  // that names the ask is mail like any other.
  if (waiting !== undefined && envelope.in_reply_to.includes(waiting.id) && envelope.from === waiting.to) {
    // The answer to the waiting ask is that tool call's result: neither emitted nor injected. It
    // stays journaled until the host says the result entered the conversation (messageEntered with
    // the reply's id): a crash before then shows it after the restart, as an answer nobody waits for.
    ctx.journal.track(envelope.id, name);
    waiting.finish({ kind: "answered", envelope, path });
    return;
  }
  const quoted = quotedRequests(ctx, envelope);
  const requests = quoted.flatMap((q) => (q.copy === undefined ? [] : [q.copy]));
  if (takenOver(ctx, s, envelope, path, requests)) {
    return;
  }
  // Any ask of ours other than the waiting one stopped waiting; after a restart only its sent/ copy knows it was an ask.
  const abandoned =
    envelope.in_reply_to.some((id) => ctx.waits.abandoned(id)) || quoted.some((q) => q.copy?.envelope.kind === "ask");
  const sender = ctx.presence.senderOf(envelope.from, senders);
  const content = frameMail({ envelope, path, sender, quoted, askStoppedWaiting: abandoned });
  if (abandoned) {
    // An answer nobody waits for any more is delivered like a message: it starts a turn.
    const from = envelope.from;
    s.pending.set(envelope.id, { id: envelope.id, from, kind: "message", hops: envelope.hops });
    ctx.journal.track(envelope.id, name);
    inject(ctx, s, envelope, path, content, { triggerTurn: true, deliverAs: "steer" });
    return;
  }
  // Quiet mail gets no message_end. Idle, Pi appends it to the session at once: it is shown, and
  // leaves the journal now. During a run Pi holds it in memory until the turn ends: it stays in
  // the journal until settleQuiet, so a crash before then does not lose it.
  if (ctx.run.busy()) ctx.journal.track(envelope.id, name);
  inject(ctx, s, envelope, path, content, { triggerTurn: false, deliverAs: "followUp" });
}

/** One lookup for all the ids a reply names (up to 50, against a sent/ that may hold thousands of
 * copies); a copy the store cannot find or read is quoted by its id alone. */
function quotedRequests(ctx: DeliveryContext, envelope: Envelope): QuotedRequest[] {
  const self = ctx.session.address()!;
  const found = envelope.in_reply_to.length === 0 ? undefined : ctx.store.findSentCopies(self, envelope.in_reply_to);
  const copies = found?.isOk() ? found.value : undefined;
  return envelope.in_reply_to.map((id): QuotedRequest => ({ id, copy: copies?.get(id) }));
}

const copyOf = (envelope: Envelope): Envelope => ({ ...envelope, in_reply_to: [...envelope.in_reply_to] });

/** Emits on message:inbound; true when a listener took the mail over, which counts for the hop count.
 * Listeners get copies: what they edit or replace on the payload never reaches the engine. */
function takenOver(
  ctx: DeliveryContext,
  s: DeliveryState,
  envelope: Envelope,
  path: string,
  requests: ReadonlyArray<{ envelope: Envelope; path: string }>,
): boolean {
  // Nobody listening: no copies to make on the delivery path.
  if (s.listeners.length === 0) return false;
  const inbound: InboundMail = {
    envelope: copyOf(envelope),
    path,
    requests: requests.map((r) => ({ envelope: copyOf(r.envelope), path: r.path })),
    handled: false,
  };
  for (const listener of [...s.listeners]) {
    try {
      listener(inbound);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      ctx.notices.once(`listener:${String(e)}`, { kind: "listener-failed", message });
    }
  }
  if (inbound.handled !== true) return false;
  countHops(ctx, envelope.hops);
  return true;
}

function inject(
  ctx: DeliveryContext,
  s: DeliveryState,
  envelope: Envelope,
  path: string,
  content: string,
  options: { triggerTurn: boolean; deliverAs: "steer" | "followUp" },
): void {
  const details = { mailId: envelope.id, kind: envelope.kind, from: envelope.from, path };
  try {
    ctx.host.inject({ content, details }, options);
  } catch (e) {
    s.pending.delete(envelope.id);
    ctx.journal.untrack(envelope.id);
    const message = e instanceof Error ? e.message : String(e);
    ctx.notices.once(`inject:${envelope.id}`, { kind: "inject-failed", mailId: envelope.id, message });
  }
}
