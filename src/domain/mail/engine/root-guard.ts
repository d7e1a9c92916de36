// The mail root is judged at start; at each poll it must still be that folder. One swapped since
// (by whoever could write a folder above it) holds someone else's mail: the mailbox stops rather
// than inject it, and touches nothing in it (no journal, no running record written there).

import { describeStoreError as describe } from "../store-errors.js";
import type { EngineContext } from "./context.js";

/** True while the root is the one opened at start. Otherwise closes the mailbox as shutdown does
 * (watch and poll stopped, a waiting ask let go) and says why, once. */
export function rootHolds(ctx: EngineContext): boolean {
  const checked = ctx.store.checkRoot();
  if (checked.isOk()) return true;
  const { state } = ctx;
  state.closed = true;
  state.watch?.close();
  state.poll?.cancel();
  state.waiting?.finish({ kind: "aborted" });
  if (state.identity !== undefined) ctx.store.release(state.identity.address);
  ctx.host.setStatus(undefined);
  ctx.notify(`The mailbox stopped for this session: ${describe(checked.error)}`, "error");
  return false;
}
