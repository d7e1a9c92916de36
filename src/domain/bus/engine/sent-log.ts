// The messages this session sent that their recipients have not read yet: the newest copies it
// delivered, each looked up by its file name in its recipient's inbox (one lstat). A copy no longer
// there was read, expired or pruned, and is forgotten: it never comes back.
import { sentRememberedMax } from "../limits.js";
import type { BusContext } from "./context.js";
import type { SentFile } from "./send.js";

export interface SentLog {
  /** Remembers the copies a send wrote; returns its report unchanged. */
  logged<R extends { files: readonly SentFile[] }>(report: R): R;
  /** Per recipient id, how many of the remembered copies are still in its inbox. */
  unreadBy(): Map<string, number>;
}

export function createSentLog(ctx: BusContext): SentLog {
  let files: SentFile[] = [];
  return {
    logged(report) {
      files.push(...report.files);
      if (files.length > sentRememberedMax) files = files.slice(-sentRememberedMax);
      return report;
    },
    unreadBy() {
      files = files.filter((f) => ctx.store.hasMessage(f.to, f.name));
      const counts = new Map<string, number>();
      for (const f of files) counts.set(f.to, (counts.get(f.to) ?? 0) + 1);
      return counts;
    },
  };
}
