// `status` (a read that prunes; never joins) and the board's snapshot (a read that prunes nothing).
import { err, ok, type Result } from "neverthrow";
import type { FileCount, StoredOffer } from "../../../ports/bus/bus-store.js";
import { compareText } from "../../shared/text/compare.js";
import type { BusError } from "../bus-errors.js";
import type { ClaimName } from "../bus-files.js";
import { liveHolder } from "../claim-rules.js";
import { markedTags } from "../observed.js";
import { ownersOf } from "../prune-rules.js";
import type { JudgedSession } from "../session-liveness.js";
import { type BusContext, fromStore } from "./context.js";
import { standingOffers } from "./handoff.js";
import { lapsedObserved } from "./lapsed.js";
import type { Membership } from "./membership.js";
import { type Peers, readPeers } from "./peers.js";
import { pruneAs } from "./prune.js";

export type ListeningState = "wake" | "next-turn" | "off";

export interface SessionRow {
  id: string;
  label: string;
  /** Pi's session name, when its record carries one. */
  name?: string;
  /** gone: its process is dead; shown until its heartbeat ages out, its claims not listed. */
  state: "active" | "gone";
  listening: ListeningState;
  /** Files in its inbox (unreadable ones too); undefined when the count failed. */
  unread: number | undefined;
  /** The count stopped at the listing's bound: there are `unread` files or more. */
  unreadAtLeast: boolean;
  claims: string[];
  /** Those of `claims` its edits took (observed): they lapse after its last edit of them. */
  observed: string[];
  self: boolean;
  cwd: string;
  heartbeatMs: number;
  /** Alive but stopped by a signal: it reads nothing until continued. */
  stopped: boolean;
  /** Messages this session sent it that are still in its inbox (among the ones this process sent);
   * counted for `status` only. */
  unreadFromThis?: number;
}

/** A handoff's offer of claims that still stands: `to` may take `keys` from `from`. */
interface OfferRow {
  id: string;
  from: { id: string; label: string };
  to: { id: string; label: string };
  keys: string[];
}

export interface StatusView {
  self: { id: string | undefined; label: string | undefined; joined: boolean; listening: ListeningState };
  sessions: SessionRow[];
  offers: OfferRow[];
  /** Files in sessions/ this build cannot read. */
  unreadableRecords: number;
  /** The top of this session's worktree: what "on this repository" means for sessions off the bus. */
  root: string;
}

const listeningOf = (armed: boolean, wake: boolean): ListeningState => (!armed ? "off" : wake ? "wake" : "next-turn");

function rowOf(
  ctx: BusContext,
  s: JudgedSession,
  selfId: string | undefined,
  claims: string[],
  marked: ReadonlySet<string>,
  unread: ReadonlyMap<string, FileCount>,
): SessionRow {
  const count = unread.get(s.record.id) ?? ctx.store.countInbox(s.record.id).unwrapOr(undefined);
  return {
    id: s.record.id,
    label: s.record.label,
    ...(s.record.name === undefined ? {} : { name: s.record.name }),
    state: s.state === "active" ? "active" : "gone",
    listening: listeningOf(s.record.armed, s.record.wake),
    unread: count?.files,
    unreadAtLeast: count?.atLeast ?? false,
    claims,
    observed: claims.filter((key) => marked.has(`${s.record.id}~${s.record.joinToken}~${key}`)),
    self: s.record.id === selfId,
    cwd: s.record.cwd,
    heartbeatMs: s.heartbeatMs,
    stopped: s.verdict.kind === "running" && s.verdict.stopped,
  };
}

type SortedKeys = Map<string, { listed: readonly string[]; sorted: readonly string[] }>;

// The board reads a snapshot every second. A listing of an unchanged claims/ gives each owner's keys
// in the same order, as the same strings: those reuse the last sort instead of sorting 20,000 again.
const lastSorted = new WeakMap<BusContext, SortedKeys>();

function sameKeys(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Each owner's keys sorted; frozen, since a later view may hand out the same array. */
function sortedHeld(ctx: BusContext, held: ReadonlyMap<string, string[]>): Map<string, string[]> {
  const before = lastSorted.get(ctx);
  const now: SortedKeys = new Map();
  const out = new Map<string, string[]>();
  for (const [owner, listed] of held) {
    const last = before?.get(owner);
    const sorted =
      last !== undefined && sameKeys(last.listed, listed) ? last.sorted : Object.freeze([...listed].sort());
    now.set(owner, { listed, sorted });
    out.set(owner, sorted as string[]);
  }
  lastSorted.set(ctx, now);
  return out;
}

/** What a view is made of: the claims and their marks, the offers that stand, the unread counts. */
interface Listed {
  claims: readonly ClaimName[];
  marks: readonly ClaimName[];
  /** Observed claims among `claims` that have lapsed: their owner is live, but they hold nothing. */
  lapsed?: ReadonlySet<ClaimName>;
  offers: readonly StoredOffer[];
  unread: ReadonlyMap<string, FileCount>;
}

/** The view of these sessions: expired ones hidden, and only a live owner's claims listed. */
export function viewOf(
  ctx: BusContext,
  membership: Membership,
  peers: Peers,
  listed: Listed,
): Result<StatusView, BusError> {
  const { claims, unread } = listed;
  const marked = markedTags(listed.marks);
  const identity = membership.identity();
  const member = membership.member();
  const owners = ownersOf(peers.sessions);
  // One list per owner, appended in place: a copy per claim made 20,000 claims take seconds.
  const held = new Map<string, string[]>();
  for (const claim of claims) {
    // A file's identity claim is its path claim's second name: the path is shown once.
    if (claim.identity !== undefined || liveHolder(claim, owners) === undefined) continue;
    if (listed.lapsed?.has(claim) === true) continue;
    const keys = held.get(claim.owner);
    if (keys === undefined) held.set(claim.owner, [claim.key]);
    else keys.push(claim.key);
  }
  const sorted = sortedHeld(ctx, held);
  const sessions = peers.sessions
    .filter((s) => s.state !== "expired")
    .map((s) => rowOf(ctx, s, identity?.id, sorted.get(s.record.id) ?? [], marked, unread))
    .sort((a, b) => compareText(a.label, b.label) || compareText(a.id, b.id));
  return ok({
    self: {
      id: identity?.id,
      label: member?.label,
      joined: member !== undefined,
      listening: member === undefined ? "off" : listeningOf(member.armed, member.wake),
    },
    sessions,
    offers: listed.offers.map(({ offer }) => ({
      id: offer.id,
      from: { id: offer.from, label: offer.fromLabel },
      to: { id: offer.to, label: labelOf(peers, offer.to) },
      keys: offer.keys,
    })),
    unreadableRecords: peers.unreadable,
    root: ctx.place.root,
  });
}

function labelOf(peers: Peers, id: string): string {
  return peers.sessions.find((s) => s.record.id === id)?.record.label ?? id;
}

export function status(ctx: BusContext, membership: Membership): Result<StatusView, BusError> {
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  const pruned = pruneAs(ctx, membership);
  if (pruned.isErr()) return err(pruned.error);
  // The prune's own listings serve the view: a claim it reaped has no live holder or has lapsed,
  // so the view drops it anyway. Only when it expired records are they read again (a newer join put back
  // since shows); otherwise a second read would judge the same files again.
  const { claims, marks, lapsed, offers, recordsExpired, unread } = pruned.value;
  const peers = recordsExpired === 0 ? ok(pruned.value.peers) : readPeers(ctx);
  return peers.andThen((p) => viewOf(ctx, membership, p, { claims, marks, lapsed, offers, unread }));
}

export function snapshot(ctx: BusContext, membership: Membership): Result<StatusView, BusError> {
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  return readPeers(ctx).andThen((p) =>
    fromStore(ctx.store.listClaims()).andThen(({ claims, marks }) =>
      viewOf(ctx, membership, p, {
        claims,
        marks,
        lapsed: lapsedObserved(ctx, claims, marks),
        offers: standingOffers(ctx, p.sessions),
        unread: new Map(),
      }),
    ),
  );
}
