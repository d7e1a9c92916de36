// Opening the mailbox at start. A start that fails (a read-only root, a full disk, a folder in the
// way) is retried until it succeeds or the session ends: the mailbox never stays off for a cause
// that went away.
import { startRetryMs } from "../../limits.js";
import type { EngineContext, SessionIdentity } from "./context.js";
import { describe } from "./inbox.js";

/** Opens the root and this session's box, then runs `begin`; on failure, says so once and tries
 * again every startRetryMs. Until it opens, the session has no identity: every send is refused as
 * "the mailbox is not running", and nothing is claimed. */
export function openMailbox(ctx: EngineContext, identity: SessionIdentity, begin: () => void): void {
  const { state } = ctx;
  state.opening = identity;
  const opened = ctx.store.openRoot().andThen(() => ctx.store.openBox(identity.address));
  if (opened.isErr()) {
    ctx.warnOnce(
      `open:${describe(opened.error)}`,
      `The mailbox is off for this session: ${describe(opened.error)}. It tries again every ${startRetryMs / 1000} s.`,
      "error",
    );
    state.openFailed = true;
    state.openRetry = ctx.clock.setTimer(startRetryMs, () => {
      state.openRetry = undefined;
      if (!state.closed && state.opening !== undefined) openMailbox(ctx, state.opening, begin);
    });
    return;
  }
  if (state.openFailed) ctx.notify("The mailbox is on again for this session.", "info");
  state.opening = undefined;
  state.openFailed = false;
  state.identity = identity;
  if (opened.value.openToOthers) {
    ctx.warnOnce(
      "open-folder",
      `This session's mailbox folder is open to other users. Run: chmod 700 ${opened.value.path}`,
    );
  }
  begin();
}
