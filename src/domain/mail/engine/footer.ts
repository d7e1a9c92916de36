// The footer: how much mail is pending, read and owed an answer, or awaited. Owns the counts no
// other part keeps (read and still owed, awaiting an answer) and what it last showed.
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import { rememberedIdsMax } from "../limits.js";
import type { EngineContext } from "./context.js";

export interface FooterCounts {
  pending: number;
  read: number;
  awaiting: number;
}

export interface Footer {
  counts(): FooterCounts;
  /** Shows the footer if it changed; during a claim, once when the claim ends. */
  refresh(): void;
  /** A claim ended: the footer it held back is shown now. */
  refreshIfStale(): void;
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

interface FooterState {
  readOwed: Set<string>;
  awaiting: BoundedIdSet;
  /** The footer changed during a claim: it is shown once, when the claim ends. */
  stale: boolean;
  /** The footer text last shown, so an unchanged one is not shown again. */
  shown: string | undefined;
}

export function footerText(counts: FooterCounts): string | undefined {
  const parts = [
    counts.pending > 0 ? `${counts.pending} pending` : "",
    counts.read > 0 ? `${counts.read} read` : "",
    counts.awaiting > 0 ? `${counts.awaiting} awaiting` : "",
  ].filter((p) => p !== "");
  return parts.length === 0 ? undefined : `✉ ${parts.join(" · ")}`;
}

export function createFooter(ctx: EngineContext): Footer {
  const s: FooterState = {
    readOwed: new Set(),
    awaiting: createBoundedIdSet(rememberedIdsMax),
    stale: false,
    shown: undefined,
  };
  const counts = (): FooterCounts => ({
    pending: ctx.delivery.pendingCount(),
    read: s.readOwed.size + ctx.run.heldCount(),
    awaiting: s.awaiting.size,
  });
  const refresh = () => {
    if (ctx.session.closed()) return;
    // A claim takes up to a batch of mail: one footer for all of it, when the claim ends.
    if (ctx.intake.scanning()) {
      s.stale = true;
      return;
    }
    s.stale = false;
    const text = footerText(counts());
    if (text === s.shown) return;
    s.shown = text;
    ctx.host.setStatus(text);
  };
  return {
    counts,
    refresh,
    refreshIfStale() {
      if (s.stale) refresh();
    },
    clear: () => ctx.host.setStatus(undefined),
    oweRead: (mailId) => void s.readOwed.add(mailId),
    answered: (mailId) => void s.readOwed.delete(mailId),
    clearRead: () => s.readOwed.clear(),
    await: (mailId) => s.awaiting.add(mailId),
    unawait: (mailId) => s.awaiting.delete(mailId),
  };
}
