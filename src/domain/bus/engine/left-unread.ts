// A session leaving the bus with mail it never read: the mail stays in its inbox until the message
// TTL, but nobody would know it was not read. Each live sender gets an event naming what was left,
// and the leaving session's person is told (by the host, from what this returns).

import { clipCodePoints } from "../../shared/text/code-points.js";
import { firstLine } from "../../shared/text/first-line.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { BusMessage } from "../bus-files.js";
import { inboxLimitMax, leftUnreadPreviewCharsMax } from "../limits.js";
import type { BusContext } from "./context.js";
import { inboxTime } from "./inbox.js";
import type { Membership } from "./membership.js";
import { type Peers, readPeers } from "./peers.js";

/** What a leaving session left unread: how many files, who sent what was read of them, who was told. */
export interface LeftUnread {
  files: number;
  senders: string[];
  told: string[];
}

function quotedLine(message: BusMessage): string {
  const clipped = clipCodePoints(firstLine(message.text), leftUnreadPreviewCharsMax);
  return `"${clipped.text}${clipped.clipped ? "…" : ""}"`;
}

/** `2 of your messages`, and `"a", "b"` (at most three quoted, the rest counted). */
export function unreadWords(messages: readonly BusMessage[]): { count: string; named: string } {
  const count = messages.length === 1 ? "1 of your messages" : `${messages.length} of your messages`;
  const more = messages.length > 3 ? ` and ${messages.length - 3} more` : "";
  return { count, named: `${messages.slice(0, 3).map(quotedLine).join(", ")}${more}` };
}

const sendAgain = "Send again to a session that is on the bus if it still matters.";

/** The ids of the active sessions among `peers`: the senders an event can reach. */
export function activeIds(peers: Peers): Set<string> {
  return new Set(peers.sessions.filter((s) => s.state === "active").map((s) => s.record.id));
}

/** Delivers to each sender among `bySender` that is `live` an event from `from` saying `text` of its
 * messages; returns the labels of the senders told. */
export function tellSenders(
  ctx: BusContext,
  from: { id: string; label: string },
  bySender: ReadonlyMap<string, BusMessage[]>,
  live: ReadonlySet<string>,
  hops: number,
  text: (messages: readonly BusMessage[]) => string,
): string[] {
  const nowMs = ctx.clock.now();
  const told: string[] = [];
  for (const [sender, messages] of bySender) {
    if (!live.has(sender) || sender === from.id) continue;
    const event: BusMessage = {
      id: ctx.entropy.uuid(),
      from: from.id,
      fromLabel: from.label,
      to: sender,
      kind: "event",
      text: `${text(messages)} ${sendAgain}`,
      paths: [],
      sentAt: isoFromMs(nowMs),
      hops,
    };
    if (ctx.store.deliver(event, nowMs).isOk()) told.push(messages[0]?.fromLabel ?? sender);
  }
  return told;
}

/** The messages of `messages` grouped by their sender. */
export function bySenderOf(messages: Iterable<BusMessage>, except: string): Map<string, BusMessage[]> {
  const grouped = new Map<string, BusMessage[]>();
  for (const message of messages) {
    if (message.from === except) continue;
    grouped.set(message.from, [...(grouped.get(message.from) ?? []), message]);
  }
  return grouped;
}

/** Tells each live sender of the unread mail in this session's inbox what was left (as far as one
 * page of the inbox reads); undefined when nothing was left or the session is not on the bus. */
export function tellLeftUnread(ctx: BusContext, membership: Membership, hops: number): LeftUnread | undefined {
  const identity = membership.identity();
  const member = membership.member();
  if (identity === undefined || member === undefined || ctx.ready().isErr()) return undefined;
  const peek = ctx.store.peekInbox(identity.id, inboxLimitMax, inboxTime(ctx));
  if (peek.isErr() || peek.value.files === 0) return undefined;
  const messages = peek.value.entries.flatMap((entry) => (entry.kind === "message" ? [entry.message] : []));
  const bySender = bySenderOf(messages, identity.id);
  const from = { id: identity.id, label: member.label };
  const peers = readPeers(ctx);
  const live = peers.isOk() ? activeIds(peers.value) : new Set<string>();
  const told = tellSenders(ctx, from, bySender, live, hops, (left) => {
    const { count, named } = unreadWords(left);
    return `${member.label} left the bus with ${count} unread: ${named}.`;
  });
  const senders = [...bySender.values()].map((messages) => messages[0]?.fromLabel ?? "");
  return { files: peek.value.files, senders: senders.sort(), told: told.sort() };
}
