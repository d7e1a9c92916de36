// Removing the folders of closed sessions: at the first poll after start (by age), and on
// `/mailbox prune` (no age rule).
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Address } from "../address.js";
import { mayPrune } from "../prune-rules.js";
import type { MailContext } from "./context.js";
import { inboxOwner } from "./ownership.js";
import type { Presence } from "./presence.js";

/** Removes the folders of closed sessions; `olderThanDays` undefined is `/mailbox prune` (no age rule). */
export function pruneBoxes(
  ctx: MailContext,
  presence: Presence,
  olderThanDays: number | undefined,
): Result<number, StoreError> {
  const self = ctx.session.address();
  if (self === undefined) return ok(0);
  const boxes = ctx.store.listBoxes();
  if (boxes.isErr()) return err(boxes.error);
  const running = new Set<string>(presence.list().map((s) => s.address));
  const context = { self, running, nowMs: ctx.clock.now(), olderThanDays };
  let removed = 0;
  for (const box of boxes.value) {
    if (!mayPrune(box, context) || mayBeRunning(ctx, presence, box.address)) continue;
    const owner = inboxOwner(ctx, box.address);
    if (owner === "live") continue;
    const gone = ctx.store.removeBox(box.address, owner.gone);
    if (gone.isOk() && gone.value) removed++;
  }
  if (olderThanDays !== undefined && removed > 0) ctx.notices.tell({ kind: "pruned", count: removed });
  return ok(removed);
}

/** Looked at again, alone, before its folder goes: the listing of running records may have missed
 * this one (a read that failed, more records than one listing takes), and a live session's folder
 * holds its owner record and claim journal. A record still there that is not judged gone (or one
 * that cannot be read) keeps it; so does an owner record of a live process (a session starting
 * takes its inbox first), checked again by the removal once no path reaches the folder. */
function mayBeRunning(ctx: MailContext, presence: Presence, address: Address): boolean {
  const text = ctx.store.readRunning(address);
  if (text.isErr()) return true;
  return text.value !== undefined && presence.judgeRecordText(address, text.value) !== undefined;
}
