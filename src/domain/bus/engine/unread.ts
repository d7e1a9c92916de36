// The person's count of this session's unread bus mail: the files in its inbox (a read consumes
// what it shows; a notice only previews), told to the host when it changes. Looked at with each
// poll of a listening session and after each read; cleared when the session leaves the bus.
import type { BusContext } from "./context.js";

interface UnreadCount {
  /** Counts the inbox of `id` again (undefined: off the bus, nothing to count). */
  refresh(id: string | undefined): void;
}

export function createUnreadCount(ctx: BusContext): UnreadCount {
  /** What the host was last told: `files` and whether there may be more, or undefined for none. */
  let told: string | undefined;
  const tell = (unread: { files: number; atLeast: boolean } | undefined) => {
    const key = unread === undefined || unread.files === 0 ? undefined : `${unread.files}${unread.atLeast ? "+" : ""}`;
    if (key === told) return;
    told = key;
    ctx.host.unreadChanged?.(unread === undefined || unread.files === 0 ? undefined : unread);
  };
  return {
    refresh(id) {
      if (ctx.host.unreadChanged === undefined) return;
      if (id === undefined) return tell(undefined);
      const counted = ctx.store.countInbox(id);
      // A failed count changes nothing shown: the watch warns about the inbox once already.
      if (counted.isOk()) tell(counted.value);
    },
  };
}
