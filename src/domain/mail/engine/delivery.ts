// Handing claimed mail to listeners and the model, exactly once; the claim journal it keeps.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import { forgetOldest } from "../../shared/bounded-id-set.js";
import type { Address } from "../address.js";
import { decodeEnvelope, type Envelope } from "../envelope.js";
import { frameMail, type QuotedRequest, type Sender } from "../framing.js";
import { onMailEntered } from "../hop-rules.js";
import { rememberedIdsMax } from "../limits.js";
import type { OwedMail } from "../settle-rules.js";
import { rememberAsk } from "./ask-ledger.js";
import type { EngineContext, EngineState, InboundMail } from "./context.js";
import { senderOf } from "./presence.js";

/** What the claim journal must name now: mail injected and not yet read, mail whose read failed
 * after its claim, and what a crash left that recovery has not reached yet. */
export function journalNames(state: EngineState): string[] {
  return [...state.unread.values(), ...state.stranded.keys(), ...(state.recovering ?? [])];
}

/** Rewrites the journal from what it must name now. */
export function writeJournal(ctx: EngineContext): void {
  const address = ctx.state.identity?.address;
  ctx.state.journalDirty = false;
  if (address !== undefined) ctx.store.writeClaimJournal(address, journalNames(ctx.state));
}

/** Mail left the journal. Read mail is dropped from it lazily (at the next scan or poll): until
 * then a restart finds it in the host's transcript and skips it. Mail answered unread must go at
 * once, or a restart would show it, and answer it, a second time. */
export function settleJournal(ctx: EngineContext, mailId: string, how: "read" | "answered"): void {
  if (!ctx.state.unread.delete(mailId)) return;
  if (how === "answered") {
    writeJournal(ctx);
    return;
  }
  // Read mail leaves the journal on a later turn, once for all the mail read in this one: a twin
  // that takes the inbox over after a crash cannot see this process's transcript, so the journal
  // must not name read mail for long (a flood read in one turn is still one write).
  ctx.state.journalDirty = true;
  if (ctx.state.journalWriteScheduled) return;
  ctx.state.journalWriteScheduled = true;
  ctx.clock.defer(() => {
    ctx.state.journalWriteScheduled = false;
    if (ctx.state.journalDirty && !ctx.state.closed) writeJournal(ctx);
  });
}

export function accept(
  ctx: EngineContext,
  outcome: ClaimOutcome,
  senders: Map<string, Sender>,
  recovering: boolean,
): void {
  switch (outcome.kind) {
    case "gone":
      return;
    case "unread":
      // Kept journaled by the caller and read again from cur/: nothing to deliver yet.
      return;
    case "set-aside":
      if (!recovering) {
        ctx.warnOnce(`aside:${outcome.path}`, `Set aside ${outcome.path} (${outcome.reason}): it is not read as mail.`);
      }
      return;
    case "claimed": {
      const decoded = decodeEnvelope(outcome.text);
      if (decoded.isErr()) {
        if (!recovering) {
          const why = decoded.error.kind === "not-json" ? "not JSON" : decoded.error.kind;
          ctx.warnOnce(
            `bad:${outcome.path}`,
            `Set aside ${outcome.path}: it is not a valid envelope (${why}); it stays in cur/.`,
          );
        }
        return;
      }
      const envelope = decoded.value;
      // Shown before the crash, or answered already (a crash after its answer was written, before
      // the journal dropped it): never shown, nor answered, a second time.
      if (recovering && (ctx.host.hasShown(envelope.id) || ctx.state.answered.has(envelope.id))) {
        ctx.state.delivered.add(envelope.id);
        return;
      }
      deliver(ctx, envelope, outcome.name, outcome.path, senders);
      return;
    }
    default: {
      const never: never = outcome;
      throw new Error(`unknown claim outcome ${String(never)}`);
    }
  }
}

function deliver(
  ctx: EngineContext,
  envelope: Envelope,
  name: string,
  path: string,
  senders: Map<string, Sender>,
): void {
  const { state } = ctx;
  if (envelope.to !== state.identity?.address) {
    ctx.warnOnce(`to:${path}`, `Set aside ${path}: it is addressed to ${envelope.to}, not to this session.`);
    return;
  }
  if (state.delivered.has(envelope.id)) return;
  state.delivered.add(envelope.id);
  if (envelope.kind === "reply") {
    deliverReply(ctx, envelope, name, path, senders);
    return;
  }
  const owed = { id: envelope.id, from: envelope.from as Address, kind: envelope.kind };
  remember(state.received, envelope.id, owed);
  if (envelope.kind === "ask") rememberAsk(ctx, envelope.id, owed.from);
  if (takenOver(ctx, { envelope, path, requests: [], handled: false })) {
    // A takeover still arms the reply and counts as read.
    noteRead(ctx, owed);
    ctx.refreshFooter();
    return;
  }
  const content = frameMail({
    envelope,
    path,
    sender: senderOf(ctx, owed.from, senders),
    quoted: [],
    askStoppedWaiting: false,
  });
  state.pending.set(envelope.id, { ...owed, hops: envelope.hops });
  state.unread.set(envelope.id, name);
  ctx.refreshFooter();
  inject(ctx, envelope, path, content, { triggerTurn: true, deliverAs: "steer" });
}

function deliverReply(
  ctx: EngineContext,
  envelope: Envelope,
  name: string,
  path: string,
  senders: Map<string, Sender>,
): void {
  const { state } = ctx;
  for (const id of envelope.in_reply_to) state.awaiting.delete(id);
  const waiting = state.waiting;
  // Only the ask's target answers it (a loop guard, not authentication): a reply from anyone else
  // that names the ask is mail like any other.
  if (waiting !== undefined && envelope.in_reply_to.includes(waiting.id) && envelope.from === waiting.to) {
    // The answer to the waiting ask is that tool call's result: neither emitted nor injected. It
    // stays journaled until the host says the result entered the conversation (messageEntered with
    // the reply's id): a crash before then shows it after the restart, as an answer nobody waits for.
    state.unread.set(envelope.id, name);
    waiting.finish({ kind: "answered", envelope, path });
    ctx.refreshFooter();
    return;
  }
  const quoted = quotedRequests(ctx, envelope);
  const requests = quoted.flatMap((q) => (q.copy === undefined ? [] : [q.copy]));
  if (takenOver(ctx, { envelope, path, requests, handled: false })) {
    ctx.refreshFooter();
    return;
  }
  // Any ask of ours other than the waiting one stopped waiting; after a restart only its sent/ copy knows it was an ask.
  const abandoned =
    envelope.in_reply_to.some((id) => state.abandonedAsks.has(id)) ||
    quoted.some((q) => q.copy?.envelope.kind === "ask");
  const sender = senderOf(ctx, envelope.from as Address, senders);
  const content = frameMail({ envelope, path, sender, quoted, askStoppedWaiting: abandoned });
  ctx.refreshFooter();
  if (abandoned) {
    // An answer nobody waits for any more is delivered like a message: it starts a turn.
    state.pending.set(envelope.id, {
      id: envelope.id,
      from: envelope.from as Address,
      kind: "message",
      hops: envelope.hops,
    });
    state.unread.set(envelope.id, name);
    inject(ctx, envelope, path, content, { triggerTurn: true, deliverAs: "steer" });
    return;
  }
  // Quiet mail gets no message_end. Idle, Pi appends it to the session at once: it is shown, and
  // leaves the journal now. During a run Pi holds it in memory until the turn ends: it stays in
  // the journal until settleQuiet, so a crash before then does not lose it.
  if (state.busy) state.unread.set(envelope.id, name);
  inject(ctx, envelope, path, content, { triggerTurn: false, deliverAs: "followUp" });
}

/** Mail for the model entered the conversation: a request or an ask is owed an answer at settle
 * (a message is owed nothing and is not kept: a flood of them must not grow the run's state). The
 * footer's "read" is the count of those still owed, kept as a set so counting costs nothing. */
export function noteRead(ctx: EngineContext, mail: OwedMail): void {
  const { state } = ctx;
  if (mail.kind === "message") return;
  state.read.push(mail);
  if (!state.answered.has(mail.id)) state.readOwed.add(mail.id);
}

/** A bounded map: the oldest entry goes once it holds rememberedIdsMax. */
function remember<T>(map: Map<string, T>, id: string, value: T): void {
  map.delete(id);
  map.set(id, value);
  forgetOldest(map, rememberedIdsMax);
}

/** Quiet mail (unread, never pending) is in the session by now: Pi appends it at once when idle
 * and flushes what it held before a run settles. Dropped lazily, like read mail. */
export function settleQuiet(ctx: EngineContext): void {
  // Mail a stopped run dropped whose failed answer is still owed stays journaled until it is written.
  const owed = new Set(ctx.state.owedReplies.flatMap((reply) => reply.inReplyTo));
  for (const id of [...ctx.state.unread.keys()]) {
    if (!ctx.state.pending.has(id) && !owed.has(id)) settleJournal(ctx, id, "read");
  }
}

/** One lookup for all the ids a reply names (up to 50, against a sent/ that may hold thousands of
 * copies); a copy the store cannot find or read is quoted by its id alone. */
function quotedRequests(ctx: EngineContext, envelope: Envelope): QuotedRequest[] {
  const self = ctx.state.identity!.address;
  const found = envelope.in_reply_to.length === 0 ? undefined : ctx.store.findSentCopies(self, envelope.in_reply_to);
  const copies = found?.isOk() ? found.value : undefined;
  return envelope.in_reply_to.map((id): QuotedRequest => ({ id, copy: copies?.get(id) }));
}

/** Emits on message:inbound; true when a listener took the mail over, which counts for the hop count. */
function takenOver(ctx: EngineContext, inbound: InboundMail): boolean {
  emit(ctx, inbound);
  if (!inbound.handled) return false;
  ctx.state.hops = onMailEntered(ctx.state.hops, inbound.envelope.hops);
  return true;
}

function emit(ctx: EngineContext, inbound: InboundMail): void {
  for (const listener of [...ctx.state.listeners]) {
    try {
      listener(inbound);
    } catch (e) {
      ctx.warnOnce(
        `listener:${String(e)}`,
        `A message:inbound listener failed: ${e instanceof Error ? e.message : String(e)}`,
      );
    }
  }
}

function inject(
  ctx: EngineContext,
  envelope: Envelope,
  path: string,
  content: string,
  options: { triggerTurn: boolean; deliverAs: "steer" | "followUp" },
): void {
  const details = { mailId: envelope.id, kind: envelope.kind, from: envelope.from, path };
  try {
    ctx.host.inject({ content, details }, options);
  } catch (e) {
    ctx.state.pending.delete(envelope.id);
    ctx.state.unread.delete(envelope.id);
    ctx.warnOnce(
      `inject:${envelope.id}`,
      `Could not show mail ${envelope.id}: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
