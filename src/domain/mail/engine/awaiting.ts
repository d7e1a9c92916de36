// The footer's "awaiting" after a restart: the requests and asks this session sent (its sent/
// copies) that no reply it received (its cur/) answers yet. Rebuilt once, at the first poll, from
// the newest copies only: bounded work off the path of Pi's start.

import type { Address } from "../address.js";
import { type Envelope, hasSendTimeName } from "../envelope.js";
import { awaitingCopiesMax, awaitingRepliesMax } from "../limits.js";
import type { AskLedger } from "./ask-ledger.js";
import type { MailContext } from "./context.js";
import type { Footer } from "./footer.js";
import type { Ownership } from "./ownership.js";

export function rebuildAwaiting(
  ctx: MailContext,
  parts: { ownership: Ownership; ledger: AskLedger; footer: Footer },
): void {
  const address = ctx.session.address();
  if (address === undefined || parts.ownership.guest()) return;
  const sent = ctx.store.listBox(address, "sent");
  if (sent.isErr() || sent.value.length === 0) return;
  const copies = sent.value.slice(-awaitingCopiesMax);
  const open = new Set<string>();
  for (const name of copies) {
    const copy = read(ctx, address, "sent", name);
    if (copy !== undefined && copy.from === address && (copy.kind === "request" || copy.kind === "ask"))
      open.add(copy.id);
  }
  if (open.size === 0) return;
  // A reply comes after what it answers: by the naming convention, only names from the oldest
  // copy on are read (a name of another convention sorts anywhere, and is read within the bound).
  const oldest = copies[0] as string;
  const received = ctx.store.listBox(address, "cur");
  if (received.isErr()) return;
  const replies = received.value.filter((name) => name >= oldest || !hasSendTimeName(name)).slice(-awaitingRepliesMax);
  for (const name of replies) {
    const reply = read(ctx, address, "cur", name);
    if (reply?.kind !== "reply" || reply.to !== address) continue;
    for (const id of reply.in_reply_to) open.delete(id);
  }
  for (const id of open) if (!parts.ledger.isAnswered(id)) parts.footer.await(id);
}

function read(ctx: MailContext, address: Address, box: "cur" | "sent", name: string): Envelope | undefined {
  const found = box === "cur" ? ctx.store.readCur(address, name) : ctx.store.readSent(address, name);
  return found.isOk() && found.value.kind === "claimed" ? found.value.envelope : undefined;
}
