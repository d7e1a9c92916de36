// Removing the folders of closed sessions: at the first poll after start (by age), on `/mailbox
// prune` (no age rule), and the shell's `switchboard prune`, which may list its verdicts first.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Address } from "../address.js";
import { type PruneReason, pruneVerdict } from "../prune-rules.js";
import type { MailContext } from "./context.js";
import { inboxOwner } from "./ownership.js";
import type { Presence } from "./presence.js";

/** One address folder and what a prune does with it: `reason` says why it stays ("removed" when it
 * goes, or would go on a dry run). */
export interface PruneVerdict {
  address: Address;
  lastActivityMs: number;
  reason: PruneReason;
}

/** Removes the folders of closed sessions; `olderThanDays` undefined is `/mailbox prune` (no age rule). */
export function pruneBoxes(
  ctx: MailContext,
  presence: Presence,
  olderThanDays: number | undefined,
): Result<number, StoreError> {
  if (ctx.session.address() === undefined) return ok(0);
  return judgeBoxes(ctx, presence, { olderThanDays, dryRun: false }).map((verdicts) => {
    const removed = verdicts.filter((v) => v.reason === "removed").length;
    if (olderThanDays !== undefined && removed > 0) ctx.notices.tell({ kind: "pruned", count: removed });
    return removed;
  });
}

/** Every address folder with its verdict, removing those that may go unless `dryRun`; a session
 * that has not started (a shell) has no folder of its own to keep. */
export function judgeBoxes(
  ctx: MailContext,
  presence: Presence,
  options: { olderThanDays: number | undefined; dryRun: boolean },
): Result<PruneVerdict[], StoreError> {
  const boxes = ctx.store.listBoxes();
  if (boxes.isErr()) return err(boxes.error);
  const running = new Set<string>(presence.list().map((s) => s.address));
  const context = { self: ctx.session.address(), running, nowMs: ctx.clock.now(), ...options };
  const verdicts: PruneVerdict[] = [];
  for (const box of boxes.value) {
    const verdict = (reason: PruneReason) =>
      verdicts.push({ address: box.address, lastActivityMs: box.lastActivityMs, reason });
    const ruled = pruneVerdict(box, context);
    if (ruled !== "removed") {
      verdict(ruled);
      continue;
    }
    if (mayBeRunning(ctx, presence, box.address)) {
      verdict("running");
      continue;
    }
    const owner = inboxOwner(ctx, box.address);
    if (owner === "live") verdict("owner-live");
    else if (options.dryRun) verdict("removed");
    else {
      const gone = ctx.store.removeBox(box.address, owner.gone);
      verdict(gone.isOk() ? (gone.value ? "removed" : "raced") : "unremovable");
    }
  }
  return ok(verdicts);
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
