// `/mailbox sent` and `/mailbox cancel`: the mail this session sent, each with the state the files
// show (sent-state.ts), and withdrawing a request or message while it is still queued.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { firstLine } from "../../shared/text/first-line.js";
import { msFromIso } from "../../shared/text/iso-time.js";
import type { Address } from "../address.js";
import type { MailKind } from "../envelope.js";
import { idPrefixCharsMin, sentListedMax } from "../limits.js";
import { type SentState, sentState } from "../sent-state.js";
import type { MailContext } from "./context.js";
import type { Footer } from "./footer.js";
import type { Presence } from "./presence.js";
import { answeredIds, type OwnCopy, ownSentCopies } from "./sent-copies.js";

export interface SentItem {
  id: string;
  kind: Exclude<MailKind, "reply">;
  to: Address;
  /** The recipient's name while it runs. */
  toName: string | undefined;
  /** When it was sent (undefined when its time does not read). */
  sentAtMs: number | undefined;
  state: SentState;
  /** The body's first line, raw (a listing sanitizes it). */
  firstLine: string;
}

export type CancelError =
  | { kind: "not-started" }
  | { kind: "unknown"; id: string }
  | { kind: "ambiguous"; id: string; count: number }
  /** An ask waits in its tool call: Esc in that session stops it. */
  | { kind: "is-ask"; id: string }
  /** It left the recipient's new/: it was claimed, and can no longer be withdrawn. */
  | { kind: "claimed"; item: SentItem }
  | { kind: "store"; error: StoreError };

/** What a recipient's files say, read once per listing. */
interface RecipientFacts {
  name: string | undefined;
  running: boolean;
  idle: boolean;
  holding: boolean;
  journal: ReadonlySet<string>;
}

function recipientFacts(ctx: MailContext, presence: Presence, to: Address): RecipientFacts {
  const found = presence.find(to);
  const journal = ctx.store.readClaimJournal(to);
  return {
    name: found?.record.name,
    running: found !== undefined,
    idle: found?.record.state !== "busy" || found.stopped,
    holding: found?.record.mailMode !== undefined,
    journal: new Set(journal.isOk() ? journal.value.names : []),
  };
}

function itemsOf(ctx: MailContext, presence: Presence, copies: readonly OwnCopy[], self: Address): SentItem[] {
  const answered = answeredIds(ctx, self, copies[0]?.name ?? "");
  const recipients = new Map<Address, RecipientFacts>();
  return copies.map(({ name, envelope }) => {
    const to = envelope.to;
    const facts = recipients.get(to) ?? recipientFacts(ctx, presence, to);
    recipients.set(to, facts);
    const kind = envelope.kind as SentItem["kind"];
    const queued = ctx.store.isQueued(to, name).unwrapOr(false);
    const state = sentState({
      kind,
      queued,
      journaled: facts.journal.has(name),
      answered: answered.has(envelope.id),
      recipient: { running: facts.running, idle: facts.idle, holding: facts.holding },
    });
    const sentAtMs = msFromIso(envelope.ts);
    return { id: envelope.id, kind, to, toName: facts.name, sentAtMs, state, firstLine: firstLine(envelope.body) };
  });
}

/** The newest mail `from` sent (this session's when undefined), oldest first, each with its state now. */
export function listSent(ctx: MailContext, presence: Presence, from?: Address): SentItem[] {
  const sender = from ?? ctx.session.address();
  if (sender === undefined) return [];
  return itemsOf(ctx, presence, ownSentCopies(ctx, sender, sentListedMax), sender);
}

/** How many of this session's newest sent copies each recipient has not taken from its new/ yet:
 * one lstat a copy, none of the reads a state needs (a copy still queued is never answered). */
export function queuedTo(ctx: MailContext): Map<Address, number> {
  const counts = new Map<Address, number>();
  const self = ctx.session.address();
  if (self === undefined) return counts;
  for (const { name, envelope } of ownSentCopies(ctx, self, sentListedMax))
    if (ctx.store.isQueued(envelope.to, name).unwrapOr(false))
      counts.set(envelope.to, (counts.get(envelope.to) ?? 0) + 1);
  return counts;
}

/** Withdraws the request or message whose id starts with `id` while it is queued: one rename out of
 * the recipient's new/, which its claim would make; the sent copy goes with it. */
export function cancelSent(
  ctx: MailContext,
  parts: { presence: Presence; footer: Footer },
  id: string,
): Result<SentItem, CancelError> {
  const self = ctx.session.address();
  if (self === undefined) return err({ kind: "not-started" });
  const wanted = id.trim();
  const copies = ownSentCopies(ctx, self, sentListedMax);
  const matches = wanted.length < idPrefixCharsMin ? [] : copies.filter((c) => c.envelope.id.startsWith(wanted));
  const exact = matches.filter((c) => c.envelope.id === wanted);
  const [copy, ...others] = exact.length === 1 ? exact : matches;
  if (copy === undefined) return err({ kind: "unknown", id: wanted });
  if (others.length > 0) return err({ kind: "ambiguous", id: wanted, count: matches.length });
  if (copy.envelope.kind === "ask") return err({ kind: "is-ask", id: copy.envelope.id });
  const withdrawn = ctx.store.withdraw(self, copy.envelope.to, copy.name);
  if (withdrawn.isErr()) return err({ kind: "store", error: withdrawn.error });
  const [item] = itemsOf(ctx, parts.presence, [copy], self);
  if (item === undefined) return err({ kind: "unknown", id: wanted });
  if (withdrawn.value === "not-queued") return err({ kind: "claimed", item });
  ctx.store.removeSent(self, copy.name);
  parts.footer.unawait(copy.envelope.id);
  return ok(item);
}
