// The footer: how much mail is pending, read and owed an answer, or awaited. Owns the counts no
// other part keeps (read and still owed, awaiting an answer) and what it last showed; the engine
// shows it once at the end of each event.
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import { rememberedIdsMax } from "../limits.js";
import type { MailContext } from "./context.js";

export interface FooterCounts {
  pending: number;
  read: number;
  awaiting: number;
  /** Mail its person's hold keeps queued (absent or 0: none held). */
  heldBack?: number;
}

export interface Footer {
  counts(): FooterCounts;
  /** Shows the footer if it changed. Called once per engine event, when it ends: a claim of a
   * batch of mail shows one footer for all of it. */
  refresh(): void;
  /** The mailbox closed: no footer. */
  clear(): void;
  /** Read and owed an answer at settle (counted without a pass over what the run read). */
  oweRead(mailId: string): void;
  answered(mailId: string): void;
  /** A run settled: nothing it read is owed any more. */
  clearRead(): void;
  /** A request or ask this session sent, until its answer comes. */
  await(mailId: string): void;
  unawait(mailId: string): void;
}

/** What the footer counts that other parts keep: mail injected and unread, requests a stop held. */
interface FooterSource {
  pending(): number;
  held(): number;
  heldBack(): number;
}

interface FooterState {
  readOwed: Set<string>;
  awaiting: BoundedIdSet;
  /** The footer text last shown, so an unchanged one is not shown again. */
  shown: string | undefined;
}

export function footerText(counts: FooterCounts): string | undefined {
  const parts = [
    counts.pending > 0 ? `${counts.pending} pending` : "",
    counts.read > 0 ? `${counts.read} read` : "",
    counts.awaiting > 0 ? `${counts.awaiting} awaiting` : "",
    (counts.heldBack ?? 0) > 0 ? `${counts.heldBack} held back` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? undefined : `✉ ${parts.join(" · ")}`;
}

export function createFooter(ctx: MailContext, source: FooterSource): Footer {
  const s: FooterState = { readOwed: new Set(), awaiting: createBoundedIdSet(rememberedIdsMax), shown: undefined };
  const counts = (): FooterCounts => ({
    pending: source.pending(),
    read: s.readOwed.size + source.held(),
    awaiting: s.awaiting.size,
    ...(source.heldBack() > 0 ? { heldBack: source.heldBack() } : {}),
  });
  return {
    counts,
    refresh() {
      if (ctx.session.closed()) return;
      const text = footerText(counts());
      if (text === s.shown) return;
      s.shown = text;
      ctx.host.setStatus(text);
    },
    clear: () => ctx.host.setStatus(undefined),
    oweRead: (mailId) => void s.readOwed.add(mailId),
    answered: (mailId) => void s.readOwed.delete(mailId),
    clearRead: () => s.readOwed.clear(),
    await: (mailId) => s.awaiting.add(mailId),
    unawait: (mailId) => s.awaiting.delete(mailId),
  };
}
