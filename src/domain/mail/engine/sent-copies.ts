// This session's sent copies and the replies that answer them, read from its own sent/ and cur/:
// what the footer's "awaiting" is rebuilt from after a restart, and what `/mailbox sent` lists.
import type { Address } from "../address.js";
import { type Envelope, hasSendTimeName } from "../envelope.js";
import { awaitingRepliesMax } from "../limits.js";
import type { MailContext } from "./context.js";

/** A sent copy of this session's: its file name (the recipient's file has the same) and envelope. */
export interface OwnCopy {
  name: string;
  envelope: Envelope;
}

/** The newest `max` copies this session sent (requests, asks and messages), oldest first. */
export function ownSentCopies(ctx: MailContext, address: Address, max: number): OwnCopy[] {
  const sent = ctx.store.listBox(address, "sent");
  if (sent.isErr()) return [];
  const copies: OwnCopy[] = [];
  for (const name of sent.value.slice(-max)) {
    const found = ctx.store.readSent(address, name);
    if (!found.isOk() || found.value.kind !== "claimed") continue;
    const envelope = found.value.envelope;
    if (envelope.from === address && envelope.kind !== "reply") copies.push({ name, envelope });
  }
  return copies;
}

/** The ids the replies this session received answer, among its newest replies from `oldest` on: a
 * reply comes after what it answers, so by the naming convention only names sent from the oldest
 * copy's time on are read (a name of another convention sorts anywhere, and is read within the bound).
 * Replies still in new/ count too: a shell that closed after sending takes its replies later. */
export function answeredIds(ctx: MailContext, address: Address, oldest: string): Set<string> {
  const answered = new Set<string>();
  // Compared by send time alone: a reply written in the same millisecond may have a lower id.
  const since = oldest.slice(0, oldest.indexOf("-") + 1);
  const recent = (names: readonly string[]) =>
    names.filter((name) => name.slice(0, since.length) >= since || !hasSendTimeName(name)).slice(-awaitingRepliesMax);
  const note = (found: ReturnType<MailContext["store"]["readCur"]>) => {
    if (!found.isOk() || found.value.kind !== "claimed") return;
    const reply = found.value.envelope;
    if (reply.kind === "reply" && reply.to === address) for (const id of reply.in_reply_to) answered.add(id);
  };
  const received = ctx.store.listBox(address, "cur");
  if (received.isOk()) for (const name of recent(received.value)) note(ctx.store.readCur(address, name));
  const waiting = ctx.store.listNew(address);
  if (waiting.isOk()) for (const name of recent(waiting.value.names)) note(ctx.store.readNew(address, name));
  return answered;
}
