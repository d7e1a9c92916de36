import type { Address } from "./address.js";

export interface PruneCandidate {
  address: Address;
  lastActivityMs: number;
  waiting: number;
}

export interface PruneContext {
  self: Address;
  running: ReadonlySet<string>;
  nowMs: number;
  /** Undefined for `/mailbox prune`: no age rule. */
  olderThanDays: number | undefined;
}

const dayMs = 86_400_000;

/** A closed session's folder may go when it is not ours, no running session has it, nothing
 * waits in its new/, and (at start) its last activity is older than the configured age. */
export function mayPrune(folder: PruneCandidate, context: PruneContext): boolean {
  if (folder.address === context.self || context.running.has(folder.address)) return false;
  if (folder.waiting > 0) return false;
  if (context.olderThanDays === undefined) return true;
  return context.nowMs - folder.lastActivityMs > context.olderThanDays * dayMs;
}

export function describePruned(count: number): string {
  return `Removed ${count} mailbox folder${count === 1 ? "" : "s"} of closed sessions.`;
}
