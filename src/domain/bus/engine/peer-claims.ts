// The paths live sessions other than this one hold now: what a shell command of this session must
// not have written, and what git must not sweep up. A read, like the edit check: it joins nothing
// and reaps nothing.
import { err, ok, type Result } from "neverthrow";
import type { BusError } from "../bus-errors.js";
import type { Holder } from "../claim-rules.js";
import { ownerReadsMax, recordsListedMax } from "../limits.js";
import { claimTag, markedTags } from "../observed.js";
import type { JudgedSession } from "../session-liveness.js";
import { allClaims } from "./claims.js";
import type { BusContext } from "./context.js";
import { lapsedObserved } from "./lapsed.js";
import type { Membership } from "./membership.js";
import { readPeers, readSessions } from "./peers.js";

export interface PeerClaim {
  /** Relative to the top of a worktree of this repository (every worktree keys its files alike). */
  key: string;
  holder: Holder;
  /** The canonical top of the holder's worktree: where the file it meant is. */
  root: string;
  /** Taken by the holder's edit: it lapses after the holder's last edit of it. */
  observed: boolean;
}

export function peerClaims(ctx: BusContext, membership: Membership): Result<PeerClaim[], BusError> {
  const identity = membership.identity();
  const listed = allClaims(ctx);
  if (listed.isErr()) return err(listed.error);
  const { claims, marks } = listed.value;
  // A claim of this session id is this session's (under any token: a twin process's is its too).
  const others = claims.filter((c) => c.identity === undefined && c.owner !== identity?.id);
  if (others.length === 0) return ok([]);
  const sessions = ownersOf(ctx, new Set(others.map((c) => c.owner)));
  if (sessions.isErr()) return err(sessions.error);
  const byId = new Map(sessions.value.map((s) => [s.record.id, s]));
  const marked = markedTags(marks);
  const lapsed = lapsedObserved(ctx, others, marked);
  const held: PeerClaim[] = [];
  for (const claim of others) {
    const owner = byId.get(claim.owner);
    if (owner === undefined || owner.state !== "active" || owner.record.joinToken !== claim.joinToken) continue;
    if (lapsed.has(claim)) continue;
    held.push({
      key: claim.key,
      holder: { id: claim.owner, label: owner.record.label },
      root: owner.record.root,
      observed: marked.has(claimTag(claim)),
    });
  }
  return ok(held);
}

/** The records of these owners: each by its name while they are few, else one whole listing. */
function ownersOf(ctx: BusContext, ids: ReadonlySet<string>): Result<JudgedSession[], BusError> {
  if (ids.size <= ownerReadsMax) return readSessions(ctx, ids);
  return readPeers(ctx).andThen((peers) =>
    peers.truncated
      ? err<JudgedSession[], BusError>({ kind: "records-unlisted", entriesMax: recordsListedMax })
      : ok(peers.sessions.filter((s) => ids.has(s.record.id))),
  );
}

/** A live peer's claim with the absolute paths it covers: the file its holder meant (in the holder's
 * worktree) and, where this session works in another worktree of the repository, the same key there
 * (a claim holds its key in every worktree). */
export interface WatchedClaim {
  key: string;
  holder: Holder;
  paths: string[];
}

export function watchedClaims(ctx: BusContext, membership: Membership): Result<WatchedClaim[], BusError> {
  return peerClaims(ctx, membership).map((claims) =>
    claims.map(({ key, holder, root }) => ({
      key,
      holder,
      paths: [...new Set([`${root}/${key}`, `${ctx.place.root}/${key}`])],
    })),
  );
}
