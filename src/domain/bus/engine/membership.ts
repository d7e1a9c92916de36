// This session on the bus: its identity, its record, its label and its listening mode.
// The part that owns `member`; the facade hears every change through `onChange`.
import { err, ok, type Result } from "neverthrow";
import { clipCodePoints } from "../../shared/text/code-points.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { BusError } from "../bus-errors.js";
import type { SessionRecord } from "../bus-files.js";
import { isBusId } from "../claim-key.js";
import { chooseLabel, findHolder, takenBy } from "../labels.js";
import { recordsListedMax, sessionNameCharsMax } from "../limits.js";
import { type JudgedSession, namesProcess } from "../session-liveness.js";
import { type BusContext, fromStore } from "./context.js";
import { liveNames, readPeers } from "./peers.js";

export interface BusIdentity {
  id: string;
  /** Pi's session name: what a derived label comes from. */
  name: string | undefined;
}

interface Member {
  label: string;
  joinToken: string;
  armed: boolean;
  wake: boolean;
  joinedAt: string;
  /** Its edits claim what they touch (observed claims). */
  observe: boolean;
  /** The label was asked for; a derived one follows Pi's name. */
  named: boolean;
}

export interface JoinRequest {
  label?: string | undefined;
  wake?: boolean | undefined;
  listen?: boolean | undefined;
  /** false: edits take no observed claims (kept by later joins that do not say). */
  observe?: boolean | undefined;
}

export interface JoinReport {
  id: string;
  label: string;
  /** The label before this join, when it was already on the bus under another. */
  previousLabel: string | undefined;
  /** A label was asked for: the host makes it Pi's session name too. */
  named: boolean;
  listening: boolean;
  wake: boolean;
  /** Its edits take observed claims. */
  observing: boolean;
}

export interface Membership {
  identity(): BusIdentity | undefined;
  member(): Member | undefined;
  start(identity: BusIdentity): void;
  renamed(name: string | undefined): void;
  join(request: JoinRequest): Result<JoinReport, BusError>;
  /** The implicit join of send, inbox, claim and release: a plain join when not on the bus,
   * refused to a process another live process of its id displaced (only `join` takes over). */
  ensureJoined(): Result<BusIdentity & Member, BusError>;
  /** The record this membership writes (at a join and at every heartbeat). */
  record(): SessionRecord | undefined;
  /** Takes on a record this very process wrote before a reload. */
  adopt(record: SessionRecord): void;
  /** Forgets the membership without touching the disk: another process owns the record now. */
  drop(): void;
  /** Before every read of the inbox: the record is still this process's. When another process of
   * this id owns it now, this one leaves the bus (told once) and the read is refused. */
  checkOwner(): Result<void, BusError>;
}

interface MembershipState {
  identity: BusIdentity | undefined;
  member: Member | undefined;
  /** The membership was dropped (another process took the record, or it was lost): an implicit
   * join must not take the record back from a live twin; an explicit join may. */
  dropped: boolean;
}

/** The process that owns this id's record now, when it is not this one (undefined: this one, none,
 * or the record could not be read). */
function otherOwner(ctx: BusContext, id: string, joinToken: string | undefined): SessionRecord | undefined {
  const stored = ctx.store.readRecord(id);
  const found = stored.isOk() ? stored.value?.record : undefined;
  if (found === undefined) return undefined;
  const mine = namesProcess(found, ctx.self) && (joinToken === undefined || found.joinToken === joinToken);
  return mine ? undefined : found;
}

function recordOf(ctx: BusContext, identity: BusIdentity, m: Member): SessionRecord {
  const { pid, started, bootId, pidNamespace } = ctx.self;
  const name = identity.name === undefined ? "" : clipCodePoints(identity.name.trim(), sessionNameCharsMax).text;
  return {
    id: identity.id,
    label: m.label,
    pid,
    ...(started === undefined ? {} : { started }),
    ...(bootId === undefined ? {} : { bootId }),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
    joinToken: m.joinToken,
    cwd: ctx.place.cwd,
    root: ctx.place.root,
    armed: m.armed,
    wake: m.wake,
    joinedAt: m.joinedAt,
    ...(m.observe ? {} : { observe: false }),
    ...(name === "" ? {} : { name }),
    ...(m.named ? { named: true } : {}),
  };
}

// The last process to join owns the record. Joining over a live record of this id (a second
// pane on one session) keeps its token, so the claims it holds pass to this process too
function tokenFor(ctx: BusContext, current: Member | undefined, own: JudgedSession | undefined): string {
  return current?.joinToken ?? (own?.state === "active" ? own.record.joinToken : ctx.entropy.uuid());
}

function join(
  ctx: BusContext,
  state: MembershipState,
  request: JoinRequest,
  onChange: (member: Member | undefined) => void,
  /** A rename's join: a label not asked for is derived again from the new name. */
  rederive = false,
): Result<JoinReport, BusError> {
  const { identity, member } = state;
  if (identity === undefined) return err({ kind: "not-started" });
  const { id, name } = identity;
  // A rename re-derives the label a join did not ask for; a label asked for stays.
  const current = rederive && member?.named !== true ? undefined : member?.label;
  const ready = ctx.ready();
  if (ready.isErr()) return err(ready.error);
  const peers = readPeers(ctx);
  if (peers.isErr()) return err(peers.error);
  // A label is free only if no record holds it: with sessions/ cut at its bound, that is unknown.
  if (peers.value.truncated) return err({ kind: "records-unlisted", entriesMax: recordsListedMax });
  const asked = { explicit: request.label, sessionName: name, realCwd: ctx.place.cwd, selfId: id };
  const mailNames = ctx.host.mailNames?.() ?? [];
  const label = chooseLabel({ ...asked, current }, liveNames(peers.value, mailNames));
  if (label.isErr()) return err(label.error);
  const armed = request.listen !== false;
  const own = peers.value.sessions.find((s) => s.record.id === id);
  // What a join that backs off puts back: this process's record, or one another process wrote under
  // this id, or nothing.
  const previous = member !== undefined ? recordOf(ctx, identity, member) : own?.record;
  let next: Member = {
    label: label.value,
    joinToken: tokenFor(ctx, member, own),
    armed,
    wake: armed && request.wake === true,
    joinedAt: member?.joinedAt ?? isoFromMs(ctx.clock.now()),
    observe: request.observe ?? member?.observe ?? true,
    named: request.label !== undefined || (current !== undefined && member?.named === true),
  };
  // Checked before the write and again after it, as a claim is: of two sessions taking one label at
  // the same moment, each finds the other's record after writing its own. A label asked for is then
  // refused (and the record put back); a derived one is derived again, with the id's end added.
  for (let attempt = 0; ; attempt++) {
    const written = fromStore(ctx.store.writeRecord(recordOf(ctx, identity, next)));
    if (written.isErr()) return err(written.error);
    const after = readPeers(ctx);
    if (after.isErr()) return err(after.error);
    const live = liveNames(after.value, mailNames);
    const holder = findHolder(next.label, id, live);
    if (holder === undefined) break;
    if (request.label !== undefined || attempt >= 1) {
      const undone = fromStore<unknown>(
        previous === undefined ? ctx.store.removeRecord(id, next.joinToken) : ctx.store.writeRecord(previous),
      );
      if (undone.isErr()) return err(undone.error);
      return err(takenBy(next.label, holder, live));
    }
    const again = chooseLabel({ ...asked, current: undefined }, live);
    if (again.isErr()) return err(again.error);
    next = { ...next, label: again.value };
  }
  state.member = next;
  state.dropped = false;
  onChange(next);
  return ok({
    id,
    label: next.label,
    previousLabel: member !== undefined && member.label !== next.label ? member.label : undefined,
    named: request.label !== undefined,
    listening: next.armed,
    wake: next.wake,
    observing: next.observe,
  });
}

export function createMembership(ctx: BusContext, onChange: (member: Member | undefined) => void): Membership {
  const state: MembershipState = { identity: undefined, member: undefined, dropped: false };
  const implicitJoin = (): Result<BusIdentity & Member, BusError> => {
    // An older twin, told it is off the bus, stays off until it joins explicitly.
    const other =
      state.dropped && state.identity !== undefined ? otherOwner(ctx, state.identity.id, undefined) : undefined;
    if (other !== undefined && (other.pid === undefined || ctx.probe.check(other.pid, other.started) !== "gone"))
      return err({ kind: "displaced", pid: other.pid });
    return join(ctx, state, {}, onChange).andThen(joined);
  };
  const joined = (): Result<BusIdentity & Member, BusError> =>
    state.identity !== undefined && state.member !== undefined
      ? ok({ ...state.identity, ...state.member })
      : err({ kind: "not-started" });
  return {
    identity: () => state.identity,
    member: () => state.member,
    start(started) {
      // The id names files and claims: an id that could not be a file name leaves the bus unusable.
      if (state.identity === undefined && isBusId(started.id)) state.identity = { ...started };
    },
    renamed(name) {
      if (state.identity === undefined) return;
      state.identity.name = name;
      // The record carries the new name at once, and a derived label follows it; a failed relabel
      // keeps the label held now.
      const m = state.member;
      if (m !== undefined) join(ctx, state, { listen: m.armed, wake: m.wake, observe: m.observe }, onChange, true);
    },
    join: (request) => join(ctx, state, request, onChange),
    ensureJoined: () => (state.member !== undefined ? joined() : implicitJoin()),
    record: () =>
      state.identity === undefined || state.member === undefined
        ? undefined
        : recordOf(ctx, state.identity, state.member),
    adopt(record) {
      if (state.identity === undefined || record.id !== state.identity.id) return;
      const { label, joinToken, armed, wake, joinedAt } = record;
      const named = record.named === true;
      state.member = { label, joinToken, armed, wake, joinedAt, observe: record.observe !== false, named };
      onChange(state.member);
    },
    drop() {
      if (state.member === undefined) return;
      state.member = undefined;
      state.dropped = true;
      onChange(undefined);
    },
    checkOwner() {
      const { identity, member } = state;
      if (identity === undefined || member === undefined) return ok(undefined);
      const other = otherOwner(ctx, identity.id, member.joinToken);
      if (other === undefined) return ok(undefined);
      state.member = undefined;
      state.dropped = true;
      onChange(undefined);
      ctx.host.warn({ kind: "displaced", pid: other.pid });
      return err({ kind: "displaced", pid: other.pid });
    },
  };
}
