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
import { readPeers } from "./peers.js";

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

function eventText(label: string, messages: readonly BusMessage[]): string {
  const count = messages.length === 1 ? "1 of your messages" : `${messages.length} of your messages`;
  const named = messages.slice(0, 3).map(quotedLine).join(", ");
  const more = messages.length > 3 ? ` and ${messages.length - 3} more` : "";
  return `${label} left the bus with ${count} unread: ${named}${more}. Send again to a session that is on the bus if it still matters.`;
}

/** Tells each live sender of the unread mail in this session's inbox what was left (as far as one
 * page of the inbox reads); undefined when nothing was left or the session is not on the bus. */
export function tellLeftUnread(ctx: BusContext, membership: Membership, hops: number): LeftUnread | undefined {
  const identity = membership.identity();
  const member = membership.member();
  if (identity === undefined || member === undefined || ctx.ready().isErr()) return undefined;
  const peek = ctx.store.peekInbox(identity.id, inboxLimitMax, inboxTime(ctx));
  if (peek.isErr() || peek.value.files === 0) return undefined;
  const bySender = new Map<string, BusMessage[]>();
  for (const entry of peek.value.entries) {
    if (entry.kind !== "message" || entry.message.from === identity.id) continue;
    bySender.set(entry.message.from, [...(bySender.get(entry.message.from) ?? []), entry.message]);
  }
  const peers = readPeers(ctx);
  const live = new Set(
    peers.isOk() ? peers.value.sessions.filter((s) => s.state === "active").map((s) => s.record.id) : [],
  );
  const nowMs = ctx.clock.now();
  const told: string[] = [];
  for (const [sender, messages] of bySender) {
    if (!live.has(sender)) continue;
    const event: BusMessage = {
      id: ctx.entropy.uuid(),
      from: identity.id,
      fromLabel: member.label,
      to: sender,
      kind: "event",
      text: eventText(member.label, messages),
      paths: [],
      sentAt: isoFromMs(nowMs),
      hops,
    };
    if (ctx.store.deliver(event, nowMs).isOk()) told.push(messages[0]?.fromLabel ?? sender);
  }
  const senders = [...bySender.values()].map((messages) => messages[0]?.fromLabel ?? "");
  return { files: peek.value.files, senders: senders.sort(), told: told.sort() };
}
