import type { Address } from "./address.js";

export interface PruneCandidate {
  address: Address;
  lastActivityMs: number;
  waiting: number;
}

export interface PruneContext {
  /** This session's address (undefined for a caller with no folder of its own). */
  self: Address | undefined;
  running: ReadonlySet<string>;
  nowMs: number;
  /** Undefined for `/mailbox prune`: no age rule. */
  olderThanDays: number | undefined;
}

/** Why a folder stays, or "removed" when it goes. The rules decide the first four; the engine finds
 * the rest when it looks again before removing (a record or an owner that still lives, a removal
 * that lost a race with new mail or failed). */
export type PruneReason = "removed" | "own" | "running" | "unread" | "recent" | "owner-live" | "raced" | "unremovable";

const dayMs = 86_400_000;

/** A closed session's folder may go when it is not ours, no running session has it, nothing
 * waits in its new/, and (at start) its last activity is older than the configured age. */
export function pruneVerdict(folder: PruneCandidate, context: PruneContext): PruneReason {
  if (folder.address === context.self) return "own";
  if (context.running.has(folder.address)) return "running";
  if (folder.waiting > 0) return "unread";
  if (context.olderThanDays === undefined) return "removed";
  return context.nowMs - folder.lastActivityMs > context.olderThanDays * dayMs ? "removed" : "recent";
}

export function describePruned(count: number): string {
  return `Removed ${count} mailbox folder${count === 1 ? "" : "s"} of closed sessions.`;
}
