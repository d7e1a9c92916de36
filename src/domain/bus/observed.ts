// Observed claims: what a joined session's edit claims without being asked. Each is a path claim
// with a mark beside it; it lapses once its holder has not edited the path for observedLapseMs, and
// a lapsed one holds nothing (it is reaped like an orphan). An explicit claim of the path drops the
// mark, and the claim then holds until released.
import type { ClaimName } from "./bus-files.js";
import { observedLapseMs } from "./limits.js";

/** One claim's membership-and-key tag: a path claim, its identity claim and its mark share it. */
export const claimTag = (claim: ClaimName): string => `${claim.owner}~${claim.joinToken}~${claim.key}`;

/** The tags of the claims marked observed. */
export function markedTags(marks: readonly ClaimName[]): Set<string> {
  return new Set(marks.map(claimTag));
}

/** Whether a marked claim last stamped at `stampedMs` has lapsed by `trustedNowMs`, the time this
 * reader has seen pass (a stepped wall clock lapses nothing). A claim whose stamp could not be read
 * (gone since the listing) has not: its holder may have taken it again under the same name, and a
 * lapse that removes it would remove the new one. */
function hasLapsed(stampedMs: number | undefined, trustedNowMs: number): boolean {
  return stampedMs !== undefined && trustedNowMs - stampedMs >= observedLapseMs;
}

/** The marked claims among `claims` that have lapsed, given the stamps read of them. */
export function lapsedClaims(
  claims: readonly ClaimName[],
  marked: ReadonlySet<string>,
  stamps: ReadonlyMap<ClaimName, number>,
  trustedNowMs: number,
): Set<ClaimName> {
  const lapsed = new Set<ClaimName>();
  for (const claim of claims) {
    if (marked.has(claimTag(claim)) && hasLapsed(stamps.get(claim), trustedNowMs)) lapsed.add(claim);
  }
  return lapsed;
}
