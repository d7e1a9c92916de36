// The heartbeat, and the ends of a membership: adopted across a reload, taken by a newer
// process of the same id, lost to a prune, left at shutdown.
import { createRepeatingTimer, type RunOutcome } from "../../shared/ticker.js";
import type { ClaimName, SessionRecord } from "../bus-files.js";
import { heartbeatMs } from "../limits.js";
import { namesProcess } from "../session-liveness.js";
import type { BusContext } from "./context.js";
import { dropOffersOf } from "./handoff.js";
import type { Membership } from "./membership.js";

/** Pi's reasons, and `step-out`: a member that joined for one piece of work under an id it comes
 * back with (a shell joined for one command) leaves, and its inbox waits for its next join. */
export type ShutdownReason = "quit" | "reload" | "new" | "resume" | "fork" | "step-out";

interface Lifecycle {
  /** Starts (or keeps) the heartbeat while a membership lasts; stops it otherwise. */
  membershipChanged(joined: boolean): void;
  /** One heartbeat now: check the record is still this process's, then rewrite it (its mtime). */
  beat(): void;
  /** Beats now if the heartbeat is overdue (the wall clock jumped, or the process was suspended):
   * peers may judge the record expired and reap what this session is about to claim. */
  freshen(): void;
  /** `act` after freshen(): a claim or an accept, which peers must not see expire meanwhile. */
  freshened<T>(act: () => T): T;
  /** After a reload: take on the record this very process wrote before it. */
  resumeAfterReload(): void;
  /** Stops the timer; leaves the bus unless a reload keeps the membership. Returns the claim keys
   * the leaving removed (the host tells the person: they are free for anyone now). */
  shutdown(reason: ShutdownReason): string[];
}

/** The record as this process last wrote it, if it is still this process's. */
function ownRecordNow(ctx: BusContext, id: string, joinToken: string): "own" | "missing" | "taken" | "unknown" {
  const stored = ctx.store.readRecord(id);
  if (stored.isErr()) return "unknown";
  const found = stored.value?.record;
  if (found === undefined) return "missing";
  return namesProcess(found, ctx.self) && found.joinToken === joinToken ? "own" : "taken";
}

// The record went while this process was silent (suspended past the TTL): its claims were
// orphans and may be reaped, so it joins again, keeping its label if free. Only a prune that put
// the record back in the meantime (it found a beat on it) lets the join keep the old token, and
// then nothing was lost and nothing is said.
function rejoinAfterLoss(ctx: BusContext, membership: Membership, lost: SessionRecord): void {
  const mode = membership.member();
  membership.drop();
  const again = { wake: mode?.wake, listen: mode?.armed };
  const joined = membership.join({ ...again, label: lost.label }).orElse(() => membership.join(again));
  if (membership.member()?.joinToken === lost.joinToken) return;
  ctx.host.warn({ kind: "record-lost", label: joined.isOk() ? joined.value.label : undefined });
}

/** The older of two processes of one id leaves the record and its claims to the newer. */
function leave(ctx: BusContext, membership: Membership): string[] {
  const identity = membership.identity();
  const record = membership.record();
  membership.drop();
  if (identity === undefined || record === undefined) return [];
  if (ownRecordNow(ctx, identity.id, record.joinToken) === "taken") return [];
  const claims = ctx.store.listClaims();
  const mine = (c: ClaimName) => c.owner === identity.id && c.joinToken === record.joinToken;
  const own = claims.isOk() ? claims.value.claims.filter(mine) : [];
  const released = ctx.store.removeClaims(own);
  const marks = claims.isOk() ? claims.value.marks.filter(mine) : [];
  if (marks.length > 0) ctx.store.removeMarks(marks);
  dropOffersOf(ctx, identity.id);
  const removed = released.andThen(() => ctx.store.removeRecord(identity.id, record.joinToken));
  if (removed.isErr()) ctx.host.warn({ kind: "store-failed", op: "leave", error: removed.error });
  return released.isOk() ? own.filter((c) => c.identity === undefined).map((c) => c.key) : [];
}

export function createLifecycle(ctx: BusContext, membership: Membership): Lifecycle {
  let closed = false;
  /** When this process last wrote its record (a join or a beat), by the wall clock peers age it by. */
  let writtenMs = ctx.clock.now();
  const heartbeat = createRepeatingTimer(ctx.clock, heartbeatMs, () => beat());

  /** Touches the record. A beat that loses the record or the id stops the heartbeat (through the
   * membership's change); one the store refused tries again a whole interval later. */
  function beat(): RunOutcome {
    const record = membership.record();
    if (closed || record === undefined) return "done";
    // In place, never a new file: a record a prune removed is not written back over the claims it
    // reaped (a beat that did so kept a record and token whose claims were gone, and nobody knew).
    const touched = ctx.store.touchRecord(record, ctx.clock.now());
    if (touched.isErr()) {
      ctx.warnOnce("heartbeat", { kind: "store-failed", op: "heartbeat", error: touched.error });
      heartbeat.restart();
      return "again";
    }
    const outcome = touched.value;
    switch (outcome.kind) {
      case "missing":
        rejoinAfterLoss(ctx, membership, record);
        return "done";
      case "changed":
        membership.drop();
        ctx.host.warn({ kind: "displaced", pid: outcome.record.pid });
        return "done";
      case "touched":
        writtenMs = ctx.clock.now();
        ctx.recovered("heartbeat");
        heartbeat.restart();
        return "again";
      default: {
        const never: never = outcome;
        throw new Error(`unknown heartbeat outcome ${JSON.stringify(never)}`);
      }
    }
  }

  const freshen = () => {
    if (heartbeat.armed() && ctx.clock.now() - writtenMs > heartbeatMs) beat();
  };

  return {
    membershipChanged(joined) {
      if (!joined) heartbeat.stop();
      else {
        // A join (or an adoption) has just written or read a current record.
        writtenMs = ctx.clock.now();
        heartbeat.start();
      }
    },
    beat: () => {
      beat();
    },
    freshen,
    freshened(act) {
      freshen();
      return act();
    },
    resumeAfterReload() {
      const identity = membership.identity();
      if (identity === undefined || ctx.ready().isErr()) return;
      const stored = ctx.store.readRecord(identity.id);
      const found = stored.isOk() ? stored.value?.record : undefined;
      if (found !== undefined && namesProcess(found, ctx.self)) membership.adopt(found);
    },
    shutdown(reason) {
      if (closed) return [];
      const released = reason === "reload" ? [] : leave(ctx, membership);
      closed = true;
      heartbeat.stop();
      return released;
    },
  };
}
