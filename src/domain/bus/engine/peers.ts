// The sessions of this bus as this process judges them right now: one listing, one probe per record.
import type { Result } from "neverthrow";
import type { BusError } from "../bus-errors.js";
import { type JudgedSession, judgeSession } from "../session-liveness.js";
import { type BusContext, fromStore } from "./context.js";

export interface Peers {
  sessions: JudgedSession[];
  /** Files of sessions/ this build cannot read: left alone. */
  unreadable: number;
}

export function readPeers(ctx: BusContext): Result<Peers, BusError> {
  const nowMs = ctx.clock.now();
  const examine = (pid: number, started: string | undefined) => ctx.probe.examine(pid, started);
  return fromStore(ctx.store.listRecords()).map((listing) => ({
    sessions: listing.records.map((stored) => judgeSession(stored, ctx.self, nowMs, examine)),
    unreadable: listing.unreadable.length,
  }));
}

/** The labels a new label must not collide with: every active session's. */
export function liveLabels(peers: Peers): { id: string; label: string }[] {
  return peers.sessions.filter((s) => s.state === "active").map((s) => ({ id: s.record.id, label: s.record.label }));
}
