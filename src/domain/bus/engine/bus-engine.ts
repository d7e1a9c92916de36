// One session's coordination bus: the actions of the spec's `session` tool and the host events that
// drive listening, routed to the part that owns each. Acts only through ports; holds no logic.
import { err, type Result } from "neverthrow";
import type { MailNotice } from "../../../ports/bus/bus-host.js";
import type { BusError } from "../bus-errors.js";
import { type ClaimReport, claim, type ReleaseReport, release, releaseKeys } from "./claims.js";
import { type BusEngineDeps, createContext } from "./context.js";
import { checkEdit, type EditVerdict } from "./edit-check.js";
import { type AcceptReport, accept } from "./handoff.js";
import { type InboxPreview, type InboxRead, inboxIds, peekInbox, readInbox, settleShown } from "./inbox.js";
import { type LeftUnread, tellLeftUnread } from "./left-unread.js";
import { createLifecycle, type ShutdownReason } from "./lifecycle.js";
import { createListening } from "./listening.js";
import { type BusIdentity, createMembership, type JoinReport, type JoinRequest } from "./membership.js";
import { type PeerClaim, peerClaims, type WatchedClaim, watchedClaims } from "./peer-claims.js";
import { type SendReport, type SendRequest, send } from "./send.js";
import { createSentLog, type SentLog } from "./sent-log.js";
import { type ClaimedWriteReport, reportClaimedWrites } from "./shell-report.js";
import { type StatusView, snapshot, status } from "./status.js";
import { type SnapshotSteps, stepwiseSnapshot } from "./stepwise-snapshot.js";
import { createUnreadCount } from "./unread.js";

export type StartReason = "startup" | "reload" | "new" | "resume" | "fork";

/** One engine per session: after `shutdown` every action answers not-started. */
export interface BusEngine {
  /** Nothing joins here (the spec's lazy join); a reload takes back this process's own record. */
  sessionStarted(session: BusIdentity, reason: StartReason): void;
  /** Pi's session name changed: a later derived label follows it; the current label does not. */
  renamed(name: string | undefined): void;
  status(): Result<StatusView, BusError>;
  /** The board's poll: status without the prune. */
  snapshot(): Result<StatusView, BusError>;
  /** The same snapshot read a page of claims/ per step: a caller that gives the loop back between
   * steps never holds it for a whole listing. */
  snapshotSteps(): Result<SnapshotSteps, BusError>;
  join(request: JoinRequest): Result<JoinReport, BusError>;
  send(request: SendRequest): Result<SendReport, BusError>;
  inbox(limit: number | undefined): Result<InboxRead, BusError>;
  claim(paths: readonly string[]): Result<ClaimReport, BusError>;
  release(paths: readonly string[]): Result<ReleaseReport, BusError>;
  /** Before the model edits or writes `path`: whether another live session holds it. A read, except
   * that a joined session that observes claims the path (observed) when nobody holds it. */
  checkEdit(path: string): Result<EditVerdict, BusError>;
  /** The paths live sessions other than this one hold now (a read). */
  peerClaims(): Result<PeerClaim[], BusError>;
  /** Live peers' claims with the absolute paths each covers: what a shell call is watched on. */
  watchedClaims(): Result<WatchedClaim[], BusError>;
  /** Tells each holder of a claimed file a shell call of this session changed (an event, sent
   * without joining: the holder must hear of it whoever wrote). */
  reportClaimedWrites(report: ClaimedWriteReport): Result<string[], BusError>;
  /** Takes the claims a handoff offered this session (its message id), in one step per claim. */
  accept(id: string): Result<AcceptReport, BusError>;
  /** The board's `x`: release these stored keys as they are. */
  releaseKeys(keys: readonly string[]): Result<ReleaseReport, BusError>;
  /** The board's Inbox: the front of this session's inbox, consumed by nothing. */
  peek(max: number): Result<InboxPreview, BusError>;
  /** The ids of the mail still in this session's inbox, from names alone (what a notice may still announce). */
  inboxIds(): Result<ReadonlySet<string>, BusError>;
  /** This session on the bus now, from memory (no disk): undefined when it is not a member. */
  membership(): { id: string; label: string; listening: boolean; wake: boolean } | undefined;
  runStarted(): void;
  runSettled(aborted: boolean): void;
  /** A prompt starts a turn: the mail to report with it, announced now (never twice). */
  promptStarting(): MailNotice | undefined;
  /** The hop count of the turn in progress as the bus counts it (without the mailbox's). */
  turnHops(): number;
  /** Polls the inbox now (a host that heard of new mail some other way). */
  poll(): void;
  /** Mail the session's transcript already announced (a reload's new engine remembers nothing). */
  markAnnounced(ids: readonly string[]): void;
  /** Leaves the bus (a reload keeps it); returns the claim keys it released. */
  shutdown(reason: ShutdownReason): { released: string[]; leftUnread: LeftUnread | undefined };
}

export function createBusEngine(deps: BusEngineDeps): BusEngine {
  const ctx = createContext(deps);
  const unread = createUnreadCount(ctx);
  const listening = createListening(ctx, (id) => unread.refresh(id));
  let closed = false;
  const membership = createMembership(ctx, (member) => {
    const id = member === undefined ? undefined : membership.identity()?.id;
    listening.configure(id, { armed: member?.armed ?? false, wake: member?.wake ?? false });
    unread.refresh(id);
    lifecycle.membershipChanged(member !== undefined);
  });
  const lifecycle = createLifecycle(ctx, membership);
  const sentLog = createSentLog(ctx);
  const open = <T>(act: () => Result<T, BusError>): Result<T, BusError> =>
    closed ? err({ kind: "not-started" }) : act();

  return {
    sessionStarted(session, reason) {
      if (closed) return;
      membership.start(session);
      if (reason === "reload") lifecycle.resumeAfterReload();
    },
    renamed: (name) => membership.renamed(name),
    status: () => open(() => status(ctx, membership).map(withUnreadFromThis(sentLog))),
    // Only the model's status shows it: the board's 1 s snapshot looks up no sent copies.
    snapshot: () => open(() => snapshot(ctx, membership)),
    snapshotSteps: () => open(() => stepwiseSnapshot(ctx, membership)),
    join: (request) => open(() => membership.join(request)),
    send: (request) => open(() => send(ctx, membership, request, listening.turnHops()).map(sentLog.logged)),
    inbox: (limit) =>
      open(() => {
        const read = readInbox(ctx, membership, limit);
        unread.refresh(membership.identity()?.id);
        return read;
      }),
    claim: (paths) => open(() => lifecycle.freshened(() => claim(ctx, membership, paths))),
    release: (paths) => open(() => release(ctx, membership, paths)),
    checkEdit: (path) =>
      open(() => {
        if (membership.member() !== undefined) lifecycle.freshen();
        return checkEdit(ctx, membership, path);
      }),
    peerClaims: () => open(() => peerClaims(ctx, membership)),
    watchedClaims: () => open(() => watchedClaims(ctx, membership)),
    reportClaimedWrites: (report) => open(() => reportClaimedWrites(ctx, membership, report, listening.turnHops())),
    accept: (id) => open(() => lifecycle.freshened(() => accept(ctx, membership, id))),
    releaseKeys: (keys) => open(() => releaseKeys(ctx, membership, keys)),
    peek: (max) => open(() => peekInbox(ctx, membership, max)),
    inboxIds: () => open(() => inboxIds(ctx, membership)),
    membership() {
      const identity = membership.identity();
      const member = membership.member();
      if (closed || identity === undefined || member === undefined) return undefined;
      return { id: identity.id, label: member.label, listening: member.armed, wake: member.wake };
    },
    runStarted: () => listening.runStarted(),
    runSettled: (aborted) => listening.runSettled(aborted),
    promptStarting: () => (closed ? undefined : listening.promptStarting()),
    turnHops: () => listening.ownTurnHops(),
    poll: () => listening.poll(),
    markAnnounced: (ids) => listening.markAnnounced(ids),
    shutdown(reason) {
      if (closed) return { released: [], leftUnread: undefined };
      // What this process showed and the session recorded goes; what it never recorded goes back.
      const identity = membership.identity();
      if (identity !== undefined && ctx.ready().isOk()) settleShown(ctx, identity.id);
      // A reload keeps the membership and its inbox, and a member stepping out reads its inbox when
      // it joins again: nothing is left for good, so no sender is told.
      const staying = reason === "reload" || reason === "step-out";
      const leftUnread = staying ? undefined : tellLeftUnread(ctx, membership, listening.turnHops());
      const released = lifecycle.shutdown(reason);
      listening.close();
      closed = true;
      return { released, leftUnread };
    },
  };
}

/** Each row with the count of this session's messages still unread in its inbox. */
const withUnreadFromThis =
  (log: SentLog) =>
  (view: StatusView): StatusView => {
    const unread = log.unreadBy();
    if (unread.size === 0) return view;
    const sessions = view.sessions.map((row) => {
      const count = unread.get(row.id) ?? 0;
      return count > 0 ? { ...row, unreadFromThis: count } : row;
    });
    return { ...view, sessions };
  };
