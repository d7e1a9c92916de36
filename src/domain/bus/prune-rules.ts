// What a prune removes: expired records, claims no live record owns, mail past its TTL,
// and the inbox folders no record names once they are empty. Pure: the engine lists, this decides.
import type { ClaimName } from "./bus-files.js";
import { liveHolder, type Owners, strayIdentities } from "./claim-rules.js";
import { goneRowsMax, heartbeatLateMs, messageTtlMs, reapPerCallMax } from "./limits.js";
import { claimTag } from "./observed.js";
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
  /** The wall clock less the steps this reader saw it take (SilenceWatch.trustedNow). */
  trustedNowMs: number;
  /** false when sessions/ held more than one listing: a claim whose owner is not among `sessions`
   * is reaped only when its owner was read by name and found absent (in `absentOwners`). */
  sessionsComplete: boolean;
  absentOwners: ReadonlySet<string>;
  /** Observed claims' marks, and the marked claims found lapsed (their holder's edits stopped). */
  marks?: readonly ClaimName[];
  lapsed?: ReadonlySet<ClaimName>;
}

interface PrunePlan {
  /** Each with the heartbeat it was judged by: a record that beat since is not removed. */
  removeRecords: { id: string; joinToken: string; heartbeatMs: number }[];
  reapClaims: ClaimName[];
  /** Marks of the observed claims that hold nothing now (their claim reaped, their owner gone). */
  removeMarks: ClaimName[];
  /** Every inbox loses mail older than `messagesBeforeMs` (as far as the prune's budget of files
   * looked at reaches); `dropEmpty` when no record names it. */
  pruneInboxes: { id: string; dropEmpty: boolean }[];
  messagesBeforeMs: number;
}

/** The owners a claim is judged against: each listed session's token, label and state. */
export function ownersOf(sessions: readonly JudgedSession[]): Owners {
  return new Map(
    sessions.map((s) => [s.record.id, { joinToken: s.record.joinToken, label: s.record.label, state: s.state }]),
  );
}

/** Ended sessions' rows past the newest goneRowsMax: they hold nothing, and a storm of crashes must
 * not leave every later listing reading them for the TTL. */
function surplusGone(sessions: readonly JudgedSession[], selfId: string | undefined): JudgedSession[] {
  const gone = sessions.filter((s) => s.state === "gone" && s.record.id !== selfId);
  return gone.sort((a, b) => b.heartbeatMs - a.heartbeatMs).slice(goneRowsMax);
}

/** Mail older than this goes. Measured against the trusted clock, and not at all while every
 * running, unstopped peer's heartbeat reads as late: the wall clock stepped (those processes saw no
 * such time pass), and mail would expire on a reading no session lived through. One hung peer among
 * beating ones is no such sign. */
function messagesCutoffMs(input: PruneInput): number {
  const running = input.sessions.filter(
    (s) =>
      s.state === "active" &&
      s.record.id !== input.selfId &&
      s.verdict.kind === "running" &&
      s.verdict.liveness === "alive" &&
      !s.verdict.stopped,
  );
  const stepped = running.length > 0 && running.every((s) => input.nowMs - s.heartbeatMs > heartbeatLateMs);
  return stepped ? Number.NEGATIVE_INFINITY : Math.min(input.nowMs, input.trustedNowMs) - messageTtlMs;
}

export function planPrune(input: PruneInput): PrunePlan {
  const expired = input.sessions.filter((s) => s.state === "expired" && s.record.id !== input.selfId);
  const removed = [...expired, ...surplusGone(input.sessions, input.selfId)];
  const expiredIds = new Set(expired.map((s) => s.record.id));
  const removedIds = new Set(removed.map((s) => s.record.id));
  const kept = new Set(input.sessions.filter((s) => !removedIds.has(s.record.id)).map((s) => s.record.id));
  if (input.selfId !== undefined) kept.add(input.selfId);
  const listed = new Set(input.sessions.map((s) => s.record.id));
  const owners = ownersOf(
    input.sessions
      .filter((s) => !expiredIds.has(s.record.id))
      .map((s) => (s.record.id === input.selfId ? { ...s, state: "active" as const } : s)),
  );
  // An owner missing from a cut listing may be past its end: only one read and found absent is none.
  const judgeable = (claim: ClaimName) =>
    input.sessionsComplete || listed.has(claim.owner) || input.absentOwners.has(claim.owner);
  const stray = strayIdentities(input.claims);
  const lapsedTags = new Set([...(input.lapsed ?? [])].map(claimTag));
  const holdsNothing = (claim: ClaimName) => judgeable(claim) && liveHolder(claim, owners) === undefined;
  const reapClaims = input.claims
    .filter((claim) => stray.has(claim) || lapsedTags.has(claimTag(claim)) || holdsNothing(claim))
    .slice(0, reapPerCallMax);
  const reapedTags = new Set(reapClaims.map(claimTag));
  return {
    removeRecords: removed.map((s) => ({ id: s.record.id, joinToken: s.record.joinToken, heartbeatMs: s.heartbeatMs })),
    reapClaims,
    removeMarks: (input.marks ?? []).filter((mark) => reapedTags.has(claimTag(mark)) || holdsNothing(mark)),
    pruneInboxes: input.inboxes.map((id) => ({ id, dropEmpty: !kept.has(id) })),
    messagesBeforeMs: messagesCutoffMs(input),
  };
}
