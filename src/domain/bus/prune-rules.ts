// What a prune removes (A3, A21): expired records, claims no live record owns, mail past its TTL,
// and the inbox folders no record names once they are empty. Pure: the engine lists, this decides.
import type { ClaimName } from "./bus-files.js";
import { liveHolder, type Owners } from "./claim-rules.js";
import { messageTtlMs, reapPerCallMax } from "./limits.js";
import type { JudgedSession } from "./session-liveness.js";

interface PruneInput {
  /** Listed AFTER the claims: a claim made after its record was written always finds it here, so
   * a peer that claims in the middle of a prune keeps its claim. */
  sessions: readonly JudgedSession[];
  claims: readonly ClaimName[];
  inboxes: readonly string[];
  /** This session's id: never pruned by itself, whatever its heartbeat says (it is running). */
  selfId: string | undefined;
  nowMs: number;
}

interface PrunePlan {
  /** Each with the heartbeat it was judged by: a record that beat since is not removed. */
  removeRecords: { id: string; joinToken: string; heartbeatMs: number }[];
  reapClaims: ClaimName[];
  /** Every inbox loses mail older than `messagesBeforeMs`; `dropEmpty` when no record names it. */
  pruneInboxes: { id: string; dropEmpty: boolean }[];
  messagesBeforeMs: number;
}

/** The owners a claim is judged against: each listed session's token, label and state. */
export function ownersOf(sessions: readonly JudgedSession[]): Owners {
  return new Map(
    sessions.map((s) => [s.record.id, { joinToken: s.record.joinToken, label: s.record.label, state: s.state }]),
  );
}

export function planPrune(input: PruneInput): PrunePlan {
  const expired = input.sessions.filter((s) => s.state === "expired" && s.record.id !== input.selfId);
  const expiredIds = new Set(expired.map((s) => s.record.id));
  const kept = new Set(input.sessions.filter((s) => !expiredIds.has(s.record.id)).map((s) => s.record.id));
  if (input.selfId !== undefined) kept.add(input.selfId);
  const owners = ownersOf(
    input.sessions
      .filter((s) => !expiredIds.has(s.record.id))
      .map((s) => (s.record.id === input.selfId ? { ...s, state: "active" as const } : s)),
  );
  return {
    removeRecords: expired.map((s) => ({ id: s.record.id, joinToken: s.record.joinToken, heartbeatMs: s.heartbeatMs })),
    reapClaims: input.claims.filter((claim) => liveHolder(claim, owners) === undefined).slice(0, reapPerCallMax),
    pruneInboxes: input.inboxes.map((id) => ({ id, dropEmpty: !kept.has(id) })),
    messagesBeforeMs: input.nowMs - messageTtlMs,
  };
}
