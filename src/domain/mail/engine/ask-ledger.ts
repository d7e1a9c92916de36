// What the engine remembers of the mail it received, and of asks across a restart
// (`<address>/asks.json`): the asks it received and has not answered, so one read before a crash
// can still be answered with session_mail_reply, and the asks and requests it answered, so none is
// answered twice. Marked answered before the answer is written: a crash between the two loses that
// answer rather than sending a second one.
import { type BoundedIdSet, createBoundedIdSet, forgetOldest } from "../../shared/bounded-id-set.js";
import { list, parseShaped, record, text } from "../../shared/shape.js";
import { type Address, isAddress } from "../address.js";
import { shownId } from "../framing.js";
import { askLedgerAsksMax, rememberedIdsMax } from "../limits.js";
import type { OwedMail } from "../settle-rules.js";
import type { MailContext } from "./context.js";
import type { Footer } from "./footer.js";
import type { Ownership } from "./ownership.js";

export interface AskLedger {
  /** Loads the ledger at start (by the process that owns the inbox). */
  load(): void;
  /** Mail for the model reached this session: session_mail_reply's checks know it; an ask stays
   * answerable after a restart. */
  remember(mail: OwedMail): void;
  /** A request, ask or message this session received (the newest rememberedIdsMax). */
  received(mailId: string): OwedMail | undefined;
  /** The one received id a label shows as `shown` where that differs from the id (one over the
   * label's length, or with controls in it), for a model that gives back what it read. */
  idShownAs(shown: string): string | undefined;
  isAnswered(mailId: string): boolean;
  /** These asks and requests are answered (or about to be): never again, in this run (nor in the
   * footer's "read") and after a restart too. False when the ledger could not be written. */
  markAnswered(ids: readonly string[]): boolean;
  /** An answer that was not written after all (nothing was sent): the ask is open again (and owed
   * in the footer again, when the run read it: the caller's to say). */
  unmarkAnswered(id: string, from: Address): void;
}

interface LedgerState {
  /** Received mail by id, bounded: the oldest go once it holds rememberedIdsMax. */
  received: Map<string, OwedMail>;
  /** Asks and requests answered (by the tool or at a settle): never answered twice. */
  answered: BoundedIdSet;
  /** What asks.json holds: asks received and not answered (id → sender), and answered ids. */
  open: Map<string, Address>;
  answeredSaved: string[];
}

const ledgerShape = record({ open: list(list(text(), 2)), answered: list(text()) }, []);

interface LedgerParts {
  ownership: Ownership;
  footer: Footer;
}

export function createAskLedger(ctx: MailContext, parts: LedgerParts): AskLedger {
  const s: LedgerState = {
    received: new Map(),
    answered: createBoundedIdSet(rememberedIdsMax),
    open: new Map(),
    answeredSaved: [],
  };
  return {
    load: () => load(ctx, s),
    remember(mail) {
      receive(s, mail);
      if (mail.kind !== "ask" || s.open.has(mail.id)) return;
      s.open.set(mail.id, mail.from);
      forgetOldest(s.open, askLedgerAsksMax);
      save(ctx, parts, s);
    },
    received: (mailId) => s.received.get(mailId),
    idShownAs(shown) {
      const found = [...s.received.keys()].filter((id) => id !== shown && shownId(id) === shown);
      return found.length === 1 ? found[0] : undefined;
    },
    isAnswered: (mailId) => s.answered.has(mailId),
    markAnswered: (ids) => markAnswered(ctx, parts, s, ids),
    unmarkAnswered(id, from) {
      s.answered.delete(id);
      const at = s.answeredSaved.lastIndexOf(id);
      if (at >= 0) s.answeredSaved.splice(at, 1);
      s.open.set(id, from);
      save(ctx, parts, s);
    },
  };
}

/** Remembers received mail, the oldest forgotten past rememberedIdsMax: a long session's ids stay bounded. */
function receive(s: LedgerState, mail: OwedMail): void {
  s.received.delete(mail.id);
  s.received.set(mail.id, mail);
  forgetOldest(s.received, rememberedIdsMax);
}

function load(ctx: MailContext, s: LedgerState): void {
  const address = ctx.session.address();
  if (address === undefined) return;
  const read = ctx.store.readAskLedger(address);
  if (read.isErr() || read.value === undefined) return;
  const ledger = parseShaped<{ open: string[][]; answered: string[] }>(read.value, ledgerShape);
  if (ledger === undefined) return;
  for (const id of ledger.answered.slice(-askLedgerAsksMax)) {
    s.answered.add(id);
    s.answeredSaved.push(id);
  }
  for (const [id, from] of ledger.open.slice(-askLedgerAsksMax)) {
    if (id === undefined || from === undefined || !isAddress(from) || s.answered.has(id)) continue;
    s.open.set(id, from);
    if (!s.received.has(id)) receive(s, { id, from, kind: "ask" });
  }
}

function markAnswered(ctx: MailContext, parts: LedgerParts, s: LedgerState, ids: readonly string[]): boolean {
  if (ids.length === 0) return true;
  for (const id of ids) {
    s.answered.add(id);
    parts.footer.answered(id);
    s.open.delete(id);
    if (!s.answeredSaved.includes(id)) s.answeredSaved.push(id);
  }
  if (s.answeredSaved.length > askLedgerAsksMax) s.answeredSaved.splice(0, s.answeredSaved.length - askLedgerAsksMax);
  return save(ctx, parts, s);
}

/** Writes the ledger; false when it could not be written. */
function save(ctx: MailContext, parts: LedgerParts, s: LedgerState): boolean {
  const address = ctx.session.address();
  if (address === undefined || parts.ownership.guest()) return true;
  const text = JSON.stringify({ open: [...s.open.entries()], answered: s.answeredSaved });
  const written = ctx.store.writeAskLedger(address, text);
  if (written.isOk()) return true;
  ctx.notices.once("ask-ledger", { kind: "ledger-unwritten", error: written.error });
  return false;
}
