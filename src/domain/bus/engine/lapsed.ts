// Which observed claims have lapsed, read from the store: one lstat per marked claim asked about
// (its file's mtime is its last edit), judged against the time this reader has seen pass.
import type { ClaimName } from "../bus-files.js";
import { claimTag, lapsedClaims, markedTags } from "../observed.js";
import type { BusContext } from "./context.js";

/** The lapsed among `claims` (path or identity claims), given every mark listed with them. A claim
 * whose stamp cannot be read is not judged lapsed (it holds, as an unmarked claim would). */
export function lapsedObserved(
  ctx: BusContext,
  claims: readonly ClaimName[],
  marks: readonly ClaimName[] | ReadonlySet<string>,
): Set<ClaimName> {
  const marked = marks instanceof Set ? marks : markedTags(marks as readonly ClaimName[]);
  const observed = claims.filter((claim) => marked.has(claimTag(claim)));
  if (observed.length === 0) return new Set();
  const stamps = ctx.store.claimTimes(observed);
  if (stamps.isErr()) return new Set();
  const trustedNowMs = ctx.silence.trustedNow(ctx.clock.now(), ctx.clock.monotonic());
  return lapsedClaims(observed, marked, stamps.value, trustedNowMs);
}
