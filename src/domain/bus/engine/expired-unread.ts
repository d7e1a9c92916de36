// Mail that expires unread: the prune that removes it past the message TTL tells each live sender
// what its recipient never read, as a session leaving with unread mail does, so no work is lost
// without a word. The event comes from the recipient's id (it is about that session), under the
// label its record gives, or the start of its id once the record is gone.
import type { BusMessage } from "../bus-files.js";
import { messageTtlMs } from "../limits.js";
import type { BusContext } from "./context.js";
import { activeIds, bySenderOf, tellSenders, unreadWords } from "./left-unread.js";
import type { Peers } from "./peers.js";

const ttlWords = `${Math.round(messageTtlMs / 3_600_000)} hours`;

/** Tells the senders of `expired` (the messages a prune removed unread): `peers`, the sessions as
 * the prune judged them, name the recipients and say which senders are live (one reading for all). */
export function tellExpired(ctx: BusContext, peers: Peers, expired: readonly BusMessage[]): void {
  const live = activeIds(peers);
  const byRecipient = new Map<string, BusMessage[]>();
  for (const message of expired) byRecipient.set(message.to, [...(byRecipient.get(message.to) ?? []), message]);
  for (const [to, messages] of byRecipient) {
    const label = peers.sessions.find((s) => s.record.id === to)?.record.label ?? to.slice(0, 8);
    const text = (unread: readonly BusMessage[]) => {
      const { count, named } = unreadWords(unread);
      return `${label} never read ${count}: ${named}; they expired after ${ttlWords}.`;
    };
    tellSenders(ctx, { id: to, label }, bySenderOf(messages, to), live, 0, text);
  }
}
