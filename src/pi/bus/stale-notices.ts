// `context` drops bus notices whose mail has all been consumed (read with `inbox`, or expired): they
// would only cost context. A per-request projection: the session keeps every notice.
import type { BusEngine } from "../../domain/bus/engine/index.js";
import { inboxEntriesMax } from "../../domain/bus/limits.js";
import { noticeType, readNoticeDetails } from "./notice.js";

interface MaybeNotice {
  role?: unknown;
  customType?: unknown;
  details?: unknown;
}

const isNotice = (m: MaybeNotice) => m.role === "custom" && m.customType === noticeType;

/** The messages without stale notices, or the same array when nothing is dropped. */
export function dropStaleNotices<T>(messages: T[], engineOf: () => BusEngine | undefined): T[] {
  if (!messages.some((m) => isNotice(m as MaybeNotice))) return messages;
  const engine = engineOf();
  if (engine === undefined) return messages;
  // One listing of the inbox, names only: a notice is stale once none of its ids is there.
  const ids = engine.inboxIds();
  // A listing cut at its bound cannot say what has left the inbox.
  if (ids.isErr() || ids.value.size >= inboxEntriesMax) return messages;
  const waiting = ids.value;
  const kept = messages.filter((m) => {
    if (!isNotice(m as MaybeNotice)) return true;
    const details = readNoticeDetails((m as MaybeNotice).details);
    return details === undefined || details.ids.some((id) => waiting.has(id));
  });
  return kept.length === messages.length ? messages : kept;
}
