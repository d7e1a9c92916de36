// The mail root is judged at start; at each poll it must still be that folder. One swapped since
// (by whoever could write a folder above it) holds someone else's mail: the mailbox stops rather
// than inject it, and touches nothing in it (no journal, no running record written there).
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { MailContext } from "./context.js";

/** True while the root is the one opened at start. Otherwise closes the mailbox as shutdown does
 * (watch and poll stopped, a waiting ask let go) and says why, once. */
export function rootHolds(ctx: MailContext, halt: (error: StoreError) => void): boolean {
  const checked = ctx.store.checkRoot();
  if (checked.isOk()) return true;
  halt(checked.error);
  return false;
}
