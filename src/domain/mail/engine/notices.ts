// The engine's one way to tell the person something: a typed notice, rendered by mail-notice.ts
// (sanitized and bounded) and handed to the host. Most are said once per session, by key.
import type { AgentHost } from "../../../ports/mail/agent-host.js";
import { rememberedIdsMax } from "../limits.js";
import { describeNotice, type MailNotice, noticeLevel } from "../mail-notice.js";

export interface Notices {
  tell(notice: MailNotice): void;
  /** Tells it unless a notice with this key was told already (a failing disk warns once, not at every poll). */
  once(key: string, notice: MailNotice): void;
  /** Whether a notice with this key was told. */
  told(key: string): boolean;
}

export function createNotices(host: AgentHost): Notices {
  const told = new Set<string>();
  const tell = (notice: MailNotice) => host.notify(describeNotice(notice), noticeLevel(notice), notice.kind);
  return {
    tell,
    once(key, notice) {
      // Past the bound a session has said more than anyone reads: it stops rather than grow.
      if (told.has(key) || told.size > rememberedIdsMax) return;
      told.add(key);
      tell(notice);
    },
    told: (key) => told.has(key),
  };
}
