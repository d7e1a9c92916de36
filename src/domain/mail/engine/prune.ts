import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { describePruned, mayPrune } from "../prune-rules.js";
import type { EngineContext } from "./context.js";
import { listSessions } from "./presence.js";

/** Removes the folders of closed sessions; `olderThanDays` undefined is `/mailbox prune` (no age rule). */
export function pruneBoxes(ctx: EngineContext, olderThanDays: number | undefined): Result<number, StoreError> {
  const self = ctx.state.identity?.address;
  if (self === undefined) return ok(0);
  const boxes = ctx.store.listBoxes();
  if (boxes.isErr()) return err(boxes.error);
  const running = new Set<string>(listSessions(ctx).map((s) => s.address));
  const context = { self, running, nowMs: ctx.clock.now(), olderThanDays };
  let removed = 0;
  for (const box of boxes.value) {
    if (!mayPrune(box, context)) continue;
    const gone = ctx.store.removeBox(box.address);
    if (gone.isOk() && gone.value) removed++;
  }
  if (olderThanDays !== undefined && removed > 0) ctx.notify(describePruned(removed), "info");
  return ok(removed);
}
