// Records, messages and judged sessions for the bus's rule tests.

import type { BusMessage, SessionRecord } from "../../../src/domain/bus/bus-files.js";
import { duplicateWindowMs } from "../../../src/domain/bus/limits.js";
import type { JudgedSession, SessionState } from "../../../src/domain/bus/session-liveness.js";

export function sessionRecord(id: string, fields: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    label: id,
    pid: 100,
    joinToken: `token-${id}`,
    cwd: "/repo",
    root: "/repo",
    armed: true,
    wake: false,
    joinedAt: "2024-05-01T10:00:00.000Z",
    ...fields,
  };
}

export function judged(id: string, state: SessionState, fields: Partial<SessionRecord> = {}): JudgedSession {
  return {
    record: sessionRecord(id, fields),
    heartbeatMs: 0,
    state,
    verdict: state === "gone" ? { kind: "gone" } : { kind: "running", liveness: "alive", stopped: false },
  };
}

/** The i-th of messages sent further apart than duplicateWindowMs: none repeats another. */
export function apart(i: number): string {
  return new Date(Date.parse("2024-05-01T10:00:00.000Z") + i * (duplicateWindowMs + 1_000)).toISOString();
}

export function busMessage(id: string, fields: Partial<BusMessage> = {}): BusMessage {
  return {
    id,
    from: "sender-id",
    fromLabel: "sender",
    to: "me",
    kind: "message",
    text: `text of ${id}`,
    paths: [],
    sentAt: "2024-05-01T10:00:00.000Z",
    hops: 0,
    ...fields,
  };
}
