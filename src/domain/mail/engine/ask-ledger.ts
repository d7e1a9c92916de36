// What the engine remembers of asks across a restart (`<address>/asks.json`): the asks it received
// and has not answered, so one read before a crash can still be answered with session_mail_reply,
// and the asks and requests it answered, so none is answered twice. Marked answered before the answer is
// written: a crash between the two loses that answer rather than sending a second one.

import { forgetOldest } from "../../shared/bounded-id-set.js";
import { list, parseShaped, record, text } from "../../shared/shape.js";
import { type Address, isAddress } from "../address.js";
import { askLedgerAsksMax } from "../limits.js";
import { describeStoreError as describe } from "../store-errors.js";
import type { EngineContext } from "./context.js";

const ledgerShape = record({ open: list(list(text(), 2)), answered: list(text()) }, []);

/** Loads the ledger at start (by the process that owns the inbox). */
export function loadAskLedger(ctx: EngineContext): void {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined) return;
  const read = ctx.store.readAskLedger(address);
  if (read.isErr() || read.value === undefined) return;
  const ledger = parseShaped<{ open: string[][]; answered: string[] }>(read.value, ledgerShape);
  if (ledger === undefined) return;
  for (const id of ledger.answered.slice(-askLedgerAsksMax)) {
    state.answered.add(id);
    state.askLedger.answered.push(id);
  }
  for (const [id, from] of ledger.open.slice(-askLedgerAsksMax)) {
    if (id === undefined || from === undefined || !isAddress(from) || state.answered.has(id)) continue;
    state.askLedger.open.set(id, from);
    if (!state.received.has(id)) state.received.set(id, { id, from, kind: "ask" });
  }
}

/** An ask reached this session: it stays answerable after a restart. */
export function rememberAsk(ctx: EngineContext, id: string, from: Address): void {
  const { open } = ctx.state.askLedger;
  if (open.has(id)) return;
  open.set(id, from);
  forgetOldest(open, askLedgerAsksMax);
  save(ctx);
}

/** These asks and requests are answered (or about to be): never again, in this run (nor in the
 * footer's "read") and after a restart too (a request a crash leaves journaled after its answer
 * was written is then not shown again). False when the ledger could not be written. */
export function markAnswered(ctx: EngineContext, ids: readonly string[]): boolean {
  const { state } = ctx;
  const { open, answered } = state.askLedger;
  if (ids.length === 0) return true;
  for (const id of ids) {
    state.answered.add(id);
    state.readOwed.delete(id);
    open.delete(id);
    if (!answered.includes(id)) answered.push(id);
  }
  if (answered.length > askLedgerAsksMax) answered.splice(0, answered.length - askLedgerAsksMax);
  return save(ctx);
}

/** An answer that was not written after all (nothing was sent): the ask is open again. */
export function unmarkAnswered(ctx: EngineContext, id: string, from: Address): void {
  const { state } = ctx;
  state.answered.delete(id);
  if (state.read.some((m) => m.id === id)) state.readOwed.add(id);
  const { answered } = state.askLedger;
  const at = answered.lastIndexOf(id);
  if (at >= 0) answered.splice(at, 1);
  state.askLedger.open.set(id, from);
  save(ctx);
}

/** Writes the ledger; false when it could not be written. */
function save(ctx: EngineContext): boolean {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined || state.guest) return true;
  const text = JSON.stringify({ open: [...state.askLedger.open.entries()], answered: state.askLedger.answered });
  const written = ctx.store.writeAskLedger(address, text);
  if (written.isOk()) return true;
  ctx.warnOnce(
    "ask-ledger",
    `Could not write this session's ask ledger: ${describe(written.error)}. Asks it read may not be answerable after a restart.`,
  );
  return false;
}
