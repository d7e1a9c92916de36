// Writing mail: requests, messages, asks, replies. Every refusal is decided before anything is written.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import { cutUtf8, utf8Bytes } from "../../shared/text/utf8.js";
import { type Address, isAddress } from "../address.js";
import { type AddressError, resolveAddress } from "../addressing.js";
import { readConfig } from "../config.js";
import type { Envelope, MailKind, ReplyStatus } from "../envelope.js";
import { checkHopLimit, type HopRefusal } from "../hop-rules.js";
import { sendBodyBytesMax } from "../limits.js";
import { describeStoreError as describe } from "../store-errors.js";
import { markAnswered, unmarkAnswered } from "./ask-ledger.js";
import type { EngineContext } from "./context.js";
import { findRunning, findSession, sessionsNamed, writeOwnRecord } from "./presence.js";

export type SendError =
  | { kind: "no-session" }
  | { kind: "address"; error: AddressError }
  | { kind: "invalid-address"; to: string }
  | { kind: "empty-body" }
  | { kind: "body-too-large"; bytes: number; max: number }
  | HopRefusal
  | { kind: "not-running"; to: Address }
  /** The target's process is stopped (Ctrl-Z): it could not answer before it is continued. */
  | { kind: "target-stopped"; to: Address }
  | { kind: "ask-waiting"; on: Address }
  | { kind: "deadlock"; to: Address }
  /** This process is a guest (the session is open twice): an answer would reach the other one. */
  | { kind: "not-owner" }
  | { kind: "store"; error: StoreError };

export interface Sent {
  envelope: Envelope;
  path: string;
  /** Whether the recipient has a running record right now. */
  recipientRunning: boolean;
  /** Sent, but the fsync of the recipient's new/ failed: it may not survive a power cut. */
  unsynced: StoreError | undefined;
}

function self(ctx: EngineContext): Result<Address, SendError> {
  const identity = ctx.state.identity;
  return identity === undefined || ctx.state.closed ? err({ kind: "no-session" }) : ok(identity.address);
}

function checkBody(body: string): Result<string, SendError> {
  if (body.trim() === "") return err({ kind: "empty-body" });
  const bytes = utf8Bytes(body);
  return bytes > sendBodyBytesMax ? err({ kind: "body-too-large", bytes, max: sendBodyBytesMax }) : ok(body);
}

/** The hop limit from session-mail.json, read at each send. */
function hopLimit(ctx: EngineContext): number {
  const reading = readConfig(ctx.config.read(), ctx.config.path);
  if (reading.problem !== undefined) ctx.warnOnce("config", reading.problem, "warning");
  return reading.config.hopLimit;
}

/** A recipient resolved, and whether it runs (judged while resolving: not read a second time). */
interface Resolved {
  address: Address;
  running: boolean;
}

/** Resolves a typed recipient against the running sessions that could match it. */
export function resolveRecipient(ctx: EngineContext, to: string): Result<Resolved, SendError> {
  return self(ctx).andThen((me) => {
    const named = sessionsNamed(ctx, to);
    const candidates = [...named].map(([address, judged]) => ({ address, name: judged.record.name }));
    return resolveAddress(to, me, candidates)
      .map((address) => ({ address, running: named.has(address) }))
      .mapErr((error): SendError => ({ kind: "address", error }));
  });
}

function write(
  ctx: EngineContext,
  fields: { to: Address; kind: MailKind; hops: number; body: string; inReplyTo?: string[]; status?: ReplyStatus },
  /** Whether the recipient runs, when the caller judged it already. */
  known?: boolean,
): Result<Sent, SendError> {
  const me = ctx.state.identity!.address;
  const now = ctx.clock.now();
  const envelope: Envelope = {
    id: ctx.entropy.uuid(),
    from: me,
    to: fields.to,
    kind: fields.kind,
    hops: fields.hops,
    in_reply_to: fields.inReplyTo ?? [],
    status: fields.status ?? "",
    ts: isoFromMs(now),
    body: fields.body,
  };
  const delivered = ctx.store.deliver(envelope, now, { durable: ctx.durable });
  if (delivered.isErr()) return err({ kind: "store", error: delivered.error });
  // From here on the mail is in the recipient's new/: whatever fails next, it was sent.
  const { path, unsynced } = delivered.value;
  if (fields.kind !== "reply") {
    const kept = ctx.store.keepSent(envelope, now);
    if (kept.isErr()) ctx.warnOnce("sent-copy", `Could not keep a copy in sent/: ${describe(kept.error)}`);
    if (fields.kind !== "message") ctx.state.awaiting.add(envelope.id);
  }
  const recipientRunning = known ?? findRunning(ctx, fields.to) !== undefined;
  ctx.refreshFooter();
  return ok({ envelope, path, recipientRunning, unsynced });
}

/** A request on the user's behalf. `/mailbox` resolves names and carries 0 hops; `message:send`
 * takes an address and carries the run's count. Never refused for hops. */
export function sendRequest(
  ctx: EngineContext,
  to: string,
  body: string,
  via: "command" | "hook",
): Result<Sent, SendError> {
  return self(ctx)
    .andThen(() => checkBody(body))
    .andThen((): Result<{ address: Address; running: boolean | undefined }, SendError> => {
      if (via === "command") return resolveRecipient(ctx, to);
      if (!isAddress(to)) return err({ kind: "invalid-address", to });
      return to === ctx.state.identity!.address
        ? err({ kind: "address", error: { kind: "self", address: to } })
        : ok({ address: to, running: undefined });
    })
    .andThen(({ address, running }) => {
      const hops = via === "hook" && ctx.state.busy ? ctx.state.hops.count : 0;
      return write(ctx, { to: address, kind: "request", hops, body }, running);
    });
}

/** session_mail_send: a message that expects no answer; reaches a closed session by full id. */
export function sendMessage(ctx: EngineContext, to: string, body: string): Result<Sent, SendError> {
  return self(ctx)
    .andThen(() => resolveRecipient(ctx, to))
    .andThen((resolved) => checkBody(body).map(() => resolved))
    .andThen(({ address, running }) => {
      const refusal = checkHopLimit(ctx.state.hops, hopLimit(ctx));
      if (refusal !== undefined) return err(refusal);
      return write(ctx, { to: address, kind: "message", hops: ctx.state.hops.count, body }, running);
    });
}

/** The checks of session_mail_ask, then the ask itself; the caller waits for the answer. */
export function writeAsk(ctx: EngineContext, to: string, body: string): Result<Sent, SendError> {
  return self(ctx)
    .andThen(() => {
      const waiting = ctx.state.waiting;
      return waiting === undefined ? ok(undefined) : err<undefined, SendError>({ kind: "ask-waiting", on: waiting.to });
    })
    .andThen(() => resolveRecipient(ctx, to))
    .andThen(({ address }) => checkBody(body).map(() => address))
    .andThen((address) => {
      // Read again: what it waits on must be now's (an ask back at once is refused as a deadlock).
      const target = findSession(ctx, address);
      if (target === undefined) return err<Address, SendError>({ kind: "not-running", to: address });
      if (target.stopped) return err<Address, SendError>({ kind: "target-stopped", to: address });
      if (target.record.waitingOn === ctx.state.identity!.address)
        return err<Address, SendError>({ kind: "deadlock", to: address });
      const refusal = checkHopLimit(ctx.state.hops, hopLimit(ctx));
      return refusal === undefined ? ok(address) : err<Address, SendError>(refusal);
    })
    .andThen((address) => {
      // The record names the target before the ask is published: a target that asks back at once
      // must find this session waiting on it (and be refused), not a record a moment behind.
      ctx.state.asking = address;
      writeOwnRecord(ctx);
      const sent = write(ctx, { to: address, kind: "ask", hops: ctx.state.hops.count, body }, true);
      ctx.state.asking = undefined;
      if (sent.isErr()) writeOwnRecord(ctx);
      return sent;
    });
}

export type ReplyError =
  | { kind: "no-session" }
  | { kind: "empty-body" }
  | { kind: "body-too-large"; bytes: number; max: number }
  | { kind: "unknown-ask"; id: string }
  | { kind: "not-an-ask"; id: string; is: MailKind }
  | { kind: "already-answered"; id: string }
  | { kind: "store"; error: StoreError };

/** session_mail_reply: answers one open ask at once with status done and the turn's hop count. */
export function replyToAsk(ctx: EngineContext, askId: string, body: string): Result<Sent, ReplyError> {
  if (ctx.state.identity === undefined || ctx.state.closed) return err({ kind: "no-session" });
  const received = ctx.state.received.get(askId);
  // Answered before a restart: the ledger remembers the id, not the ask.
  if (received === undefined && ctx.state.answered.has(askId)) return err({ kind: "already-answered", id: askId });
  if (received === undefined) {
    return ctx.state.delivered.has(askId)
      ? err({ kind: "not-an-ask", id: askId, is: "reply" })
      : err({ kind: "unknown-ask", id: askId });
  }
  if (received.kind !== "ask") return err({ kind: "not-an-ask", id: askId, is: received.kind });
  if (ctx.state.answered.has(askId)) return err({ kind: "already-answered", id: askId });
  if (body.trim() === "") return err({ kind: "empty-body" });
  const bytes = utf8Bytes(body);
  if (bytes > sendBodyBytesMax) return err({ kind: "body-too-large", bytes, max: sendBodyBytesMax });
  // Answered before it is written: a crash in between loses this answer, never sends a second.
  markAnswered(ctx, [askId]);
  const sent = write(ctx, {
    to: received.from,
    kind: "reply",
    hops: ctx.state.hops.count,
    body,
    inReplyTo: [askId],
    status: "done",
  });
  if (sent.isErr()) {
    unmarkAnswered(ctx, askId, received.from);
    return err(sent.error.kind === "store" ? sent.error : { kind: "no-session" });
  }
  ctx.refreshFooter();
  return ok(sent.value);
}

/** An automatic answer at settle: carries the count, never refused, cut to the size limit. */
export interface AutomaticReply {
  to: Address;
  inReplyTo: string[];
  status: ReplyStatus;
  body: string;
  hops: number;
}

/** Writes an answer of a settle; false when it could not be written (it is still owed). */
export function writeAutomaticReply(ctx: EngineContext, reply: AutomaticReply): boolean {
  const { text, cut } = cutUtf8(reply.body, sendBodyBytesMax - 200);
  const body = cut ? `${text}\n\n[The answer was cut at ${sendBodyBytesMax / 1024} KiB.]` : text;
  const sent = write(ctx, {
    to: reply.to,
    kind: "reply",
    hops: reply.hops,
    body,
    inReplyTo: reply.inReplyTo,
    status: reply.status,
  });
  if (sent.isOk()) return true;
  const why = sent.error.kind === "store" ? describe(sent.error.error) : sent.error.kind;
  ctx.warnOnce(
    `reply:${reply.inReplyTo.join(",")}`,
    `Could not write the answer to ${reply.to} (${why}); it is kept and tried again at each poll.`,
    "error",
  );
  return false;
}
