// Removing the folders of closed sessions: at the first poll after start (by age), and on
// `/mailbox prune` (no age rule).
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { mayPrune } from "../prune-rules.js";
import type { EngineContext } from "./context.js";

/** Removes the folders of closed sessions; `olderThanDays` undefined is `/mailbox prune` (no age rule). */
export function pruneBoxes(ctx: EngineContext, olderThanDays: number | undefined): Result<number, StoreError> {
  const self = ctx.lifecycle.address();
  if (self === undefined) return ok(0);
  const boxes = ctx.store.listBoxes();
  if (boxes.isErr()) return err(boxes.error);
  const running = new Set<string>(ctx.presence.list().map((s) => s.address));
  const context = { self, running, nowMs: ctx.clock.now(), olderThanDays };
  let removed = 0;
  for (const box of boxes.value) {
    if (!mayPrune(box, context)) continue;
    const gone = ctx.store.removeBox(box.address);
    if (gone.isOk() && gone.value) removed++;
  }
  if (olderThanDays !== undefined && removed > 0) ctx.notices.tell({ kind: "pruned", count: removed });
  return ok(removed);
}
