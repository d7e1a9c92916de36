// Writing mail: requests, messages, asks, replies. Every refusal is decided before anything is
// written. Holds no state of its own: what it writes is remembered by the parts that wait on it.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { utf8Bytes } from "../../shared/text/utf8.js";
import { type Address, isAddress } from "../address.js";
import { prefixedAmong, resolveAddress } from "../addressing.js";
import { readConfig } from "../config.js";
import type { MailKind } from "../envelope.js";
import { checkHopLimit } from "../hop-rules.js";
import { sendBodyBytesMax, waitChainMax } from "../limits.js";
import type { RunningRecord } from "../running-record.js";
import type { AskLedger } from "./ask-ledger.js";
import type { MailContext } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Footer } from "./footer.js";
import { type SendError, type Sent, writeMail } from "./mail-writer.js";
import type { Presence } from "./presence.js";
import type { Run } from "./run.js";
import type { Waits } from "./waits.js";

export type { SendError, Sent } from "./mail-writer.js";

export interface Outbox {
  /** Resolves a typed recipient against the running sessions that could match it. */
  resolve(to: string): Result<Resolved, SendError>;
  /** A request on the user's behalf (`/mailbox`, or `message:send`). */
  request(to: string, body: string, via: "command" | "hook"): Result<Sent, SendError>;
  /** session_mail_send: a message that expects no answer. */
  send(to: string, body: string): Result<Sent, SendError>;
  /** The checks of session_mail_ask, then the ask itself; the caller waits for the answer. */
  writeAsk(to: string, body: string): Result<Sent, SendError>;
  /** session_mail_reply. */
  reply(askId: string, body: string): Result<Sent, ReplyError>;
}

interface OutboxParts {
  presence: Presence;
  ledger: AskLedger;
  run: Run;
  waits: Waits;
  delivery: Delivery;
  footer: Footer;
}

/** What the outbox's functions reach: the ports and the parts its factory was given. */
type OutboxContext = MailContext & OutboxParts;

export function createOutbox(mail: MailContext, parts: OutboxParts): Outbox {
  const ctx: OutboxContext = { ...mail, ...parts };
  return {
    resolve: (to) => resolveRecipient(ctx, to),
    request: (to, body, via) => sendRequest(ctx, to, body, via),
    send: (to, body) => sendMessage(ctx, to, body),
    writeAsk: (to, body) => writeAsk(ctx, to, body),
    reply: (askId, body) => replyToAsk(ctx, askId, body),
  };
}

function self(ctx: OutboxContext): Result<Address, SendError> {
  const address = ctx.session.address();
  return address === undefined || ctx.session.closed() ? err({ kind: "no-session" }) : ok(address);
}

function checkBody(body: string): Result<string, SendError> {
  if (body.trim() === "") return err({ kind: "empty-body" });
  const bytes = utf8Bytes(body);
  return bytes > sendBodyBytesMax ? err({ kind: "body-too-large", bytes, max: sendBodyBytesMax }) : ok(body);
}

/** The hop limit from session-mail.json, read at each send. */
function hopLimit(ctx: OutboxContext): number {
  const reading = readConfig(ctx.config.read(), ctx.config.path);
  if (reading.problem !== undefined) ctx.notices.once("config", { kind: "config", problem: reading.problem });
  return reading.config.hopLimit;
}

/** A recipient resolved, and whether it runs (judged while resolving: not read a second time). */
interface Resolved {
  address: Address;
  running: boolean;
  /** Its running record as judged while resolving (undefined: not running). */
  record?: RunningRecord | undefined;
}

function resolveRecipient(ctx: OutboxContext, to: string): Result<Resolved, SendError> {
  return self(ctx).andThen((me) => {
    const named = ctx.presence.named(to);
    const candidates = [...named].map(([address, { record }]) => ({ address, name: record.name, label: record.label }));
    // Only the sessions `to` could name are judged; a refusal as ambiguous (rare) judges them all,
    // so that the prefix it shows for each candidate reaches that one alone.
    return resolveAddress(to, me, candidates)
      .map((address) => ({ address, running: named.has(address), record: named.get(address)?.record }))
      .mapErr(
        (error): SendError => ({
          kind: "address",
          error: error.kind === "ambiguous" ? prefixedAmong(error, ctx.presence.list()) : error,
        }),
      );
  });
}

/** `/mailbox` resolves names and carries 0 hops; `message:send` takes an address and carries the
 * run's count. Never refused for hops. */
function sendRequest(ctx: OutboxContext, to: string, body: string, via: "command" | "hook"): Result<Sent, SendError> {
  return self(ctx)
    .andThen(() => checkBody(body))
    .andThen((): Result<Resolved, SendError> => {
      if (via === "command") return resolveRecipient(ctx, to);
      // Any address, as given and not resolved: a closed session's id need not be a UUID (Pi takes
      // any --session-id). Only what is safe as one path segment gets this far.
      if (!isAddress(to)) return err({ kind: "invalid-address", to });
      if (to === ctx.session.address()) return err({ kind: "address", error: { kind: "self", address: to } });
      const record = ctx.presence.findRunning(to);
      return ok({ address: to, running: record !== undefined, record });
    })
    .andThen((resolved) => refusedBy(resolved).map(() => resolved))
    .andThen(({ address, running }) => {
      const hops = via === "hook" && ctx.run.busy() ? ctx.run.hops().count : 0;
      return writeMail(ctx, ctx, { to: address, kind: "request", hops, body }, running);
    });
}

/** Reaches a closed session by full id. */
function sendMessage(ctx: OutboxContext, to: string, body: string): Result<Sent, SendError> {
  return self(ctx)
    .andThen(() => resolveRecipient(ctx, to))
    .andThen((resolved) => checkBody(body).map(() => resolved))
    .andThen((resolved) => refusedBy(resolved).map(() => resolved))
    .andThen(({ address, running }) => {
      // Read once: the count asks the bus too (over Pi's event bus).
      const hops = ctx.run.hops();
      const refusal = checkHopLimit(hops, hopLimit(ctx));
      if (refusal !== undefined) return err(refusal);
      return writeMail(ctx, ctx, { to: address, kind: "message", hops: hops.count, body }, running);
    });
}

function writeAsk(ctx: OutboxContext, to: string, body: string): Result<Sent, SendError> {
  return self(ctx)
    .andThen(() => {
      const waiting = ctx.waits.waiting();
      return waiting === undefined ? ok(undefined) : err<undefined, SendError>({ kind: "ask-waiting", on: waiting.to });
    })
    .andThen(() => resolveRecipient(ctx, to))
    .andThen(({ address }) => checkBody(body).map(() => address))
    .andThen((address) => {
      const target = ctx.presence.find(address);
      type Target = { address: Address; hops: number };
      if (target === undefined) return err<Target, SendError>({ kind: "not-running", to: address });
      if (target.stopped) return err<Target, SendError>({ kind: "target-stopped", to: address });
      if (target.record.mailMode === "refuse")
        return err<Target, SendError>({ kind: "refused", to: address, name: target.record.name });
      // Read once, checked and written: the count asks the bus too (over Pi's event bus).
      const hops = ctx.run.hops();
      const refusal = checkHopLimit(hops, hopLimit(ctx));
      return refusal === undefined
        ? ok<Target, SendError>({ address, hops: hops.count })
        : err<Target, SendError>(refusal);
    })
    .andThen(({ address, hops }) => {
      // This record names the target before the chain of waits is read: of sessions closing a
      // cycle at once, each writes before it reads, so the last to write finds every other edge
      // written and is refused (checked first and written after, all could get through).
      ctx.waits.announce(address);
      ctx.presence.write();
      const via = waitsBackOn(ctx, address);
      if (via !== undefined) {
        ctx.waits.announce(undefined);
        ctx.presence.write();
        return err<Sent, SendError>({ kind: "deadlock", to: address, ...(via.length > 0 ? { via } : {}) });
      }
      const sent = writeMail(ctx, ctx, { to: address, kind: "ask", hops, body }, true);
      ctx.waits.announce(undefined);
      if (sent.isErr()) ctx.presence.write();
      return sent;
    });
}

/** Refused when the recipient's person refuses mail now, as its running record says (the one read
 * while resolving it: the sender sees it before anything is written). A recipient not running
 * refuses nothing. */
function refusedBy({ address, record }: Resolved): Result<void, SendError> {
  return record?.mailMode === "refuse" ? err({ kind: "refused", to: address, name: record.name }) : ok(undefined);
}

/** Whether `target` waits, directly or through a chain of sessions each waiting on the next, on
 * this session: the sessions between (none when `target` waits on it directly), or undefined.
 * Follows the running records' `waitingOn`, fresh from disk, at most waitChainMax of them; a
 * cycle among the others (not through this session) is theirs and ends the walk. */
function waitsBackOn(ctx: OutboxContext, target: Address): Address[] | undefined {
  const self = ctx.session.address();
  const chain: Address[] = [];
  let at: Address | undefined = target;
  while (at !== undefined && chain.length < waitChainMax) {
    if (at === self) return chain.slice(1);
    if (chain.includes(at)) return undefined;
    chain.push(at);
    const next: string | undefined = ctx.presence.find(at)?.record.waitingOn;
    at = next !== undefined && isAddress(next) ? next : undefined;
  }
  return undefined;
}

export type ReplyError =
  | { kind: "no-session" }
  | { kind: "empty-body" }
  | { kind: "body-too-large"; bytes: number; max: number }
  | { kind: "unknown-ask"; id: string }
  | { kind: "not-an-ask"; id: string; is: MailKind }
  | { kind: "already-answered"; id: string }
  | { kind: "store"; error: StoreError };

/** Answers one open ask at once with status done and the turn's hop count. */
function replyToAsk(ctx: OutboxContext, given: string, body: string): Result<Sent, ReplyError> {
  if (ctx.session.address() === undefined || ctx.session.closed()) return err({ kind: "no-session" });
  // The id as given, or as the ask's label showed it (an id of another implementation's, cut or
  // with controls blanked there).
  const exact = ctx.ledger.received(given) !== undefined || ctx.ledger.isAnswered(given);
  const askId = exact ? given : (ctx.ledger.idShownAs(given) ?? given);
  const received = ctx.ledger.received(askId);
  // Answered before a restart: the ledger remembers the id, not the ask.
  if (received === undefined && ctx.ledger.isAnswered(askId)) return err({ kind: "already-answered", id: askId });
  if (received === undefined) {
    return ctx.delivery.wasDelivered(askId)
      ? err({ kind: "not-an-ask", id: askId, is: "reply" })
      : err({ kind: "unknown-ask", id: askId });
  }
  if (received.kind !== "ask") return err({ kind: "not-an-ask", id: askId, is: received.kind });
  if (ctx.ledger.isAnswered(askId)) return err({ kind: "already-answered", id: askId });
  if (body.trim() === "") return err({ kind: "empty-body" });
  const bytes = utf8Bytes(body);
  if (bytes > sendBodyBytesMax) return err({ kind: "body-too-large", bytes, max: sendBodyBytesMax });
  // Answered before it is written: a crash in between loses this answer, never sends a second.
  ctx.ledger.markAnswered([askId]);
  const sent = writeMail(ctx, ctx, {
    to: received.from,
    kind: "reply",
    hops: ctx.run.hops().count,
    body,
    inReplyTo: [askId],
    status: "done",
  });
  if (sent.isErr()) {
    ctx.ledger.unmarkAnswered(askId, received.from);
    if (ctx.run.hasRead(askId)) ctx.footer.oweRead(askId);
    return err(sent.error);
  }
  return ok(sent.value);
}
