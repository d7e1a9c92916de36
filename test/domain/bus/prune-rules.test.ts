import { describe, expect, it } from "vitest";
import { goneRowsMax, heartbeatLateMs, messageTtlMs } from "../../../src/domain/bus/limits.js";
import { planPrune } from "../../../src/domain/bus/prune-rules.js";
import type { JudgedSession } from "../../../src/domain/bus/session-liveness.js";
import { judged as judgedAt } from "./fixtures.js";

const nowMs = 5_000_000_000;
const claim = (key: string, owner: string, joinToken = `token-${owner}`) => ({ key, owner, joinToken });
/** A session judged so, its heartbeat `ageMs` old (fresh by default). */
const judged = (...args: Parameters<typeof judgedAt>): JudgedSession => ({ ...judgedAt(...args), heartbeatMs: nowMs });
/** What every plan below is given unless a test says otherwise: a whole listing, a clock that never stepped. */
const clocks = { nowMs, trustedNowMs: nowMs, sessionsComplete: true, absentOwners: new Set<string>() };

describe("planPrune", () => {
  it("removes expired records by their token and the heartbeat they were judged by, and keeps active and gone ones", () => {
    const plan = planPrune({
      sessions: [judged("a", "active"), judged("g", "gone"), judged("x", "expired")],
      claims: [],
      inboxes: [],
      selfId: undefined,
      ...clocks,
    });
    expect(plan.removeRecords).toEqual([{ id: "x", joinToken: "token-x", heartbeatMs: nowMs }]);
  });

  it("never prunes this session's own record", () => {
    const plan = planPrune({ sessions: [judged("me", "expired")], claims: [], inboxes: [], selfId: "me", ...clocks });
    expect(plan.removeRecords).toEqual([]);
  });

  it("keeps this session's own claims even when its heartbeat looks expired", () => {
    const own = claim("a", "me");
    const plan = planPrune({
      sessions: [judged("me", "expired")],
      claims: [own],
      inboxes: [],
      selfId: "me",
      ...clocks,
    });
    expect(plan.reapClaims).toEqual([]);
  });

  it("reaps claims of a gone, expired, missing or re-tokened owner, and keeps an active owner's", () => {
    const claims = [
      claim("a", "live"),
      claim("b", "gone"),
      claim("c", "old"),
      claim("d", "nobody"),
      claim("e", "live", "t0"),
    ];
    const plan = planPrune({
      sessions: [judged("live", "active"), judged("gone", "gone"), judged("old", "expired")],
      claims,
      inboxes: [],
      selfId: undefined,
      ...clocks,
    });
    expect(plan.reapClaims.map((c) => c.key)).toEqual(["b", "c", "d", "e"]);
  });

  it("prunes every inbox by the message TTL and drops the folders no kept record names", () => {
    const plan = planPrune({
      sessions: [judged("live", "active"), judged("gone", "gone"), judged("old", "expired")],
      claims: [],
      inboxes: ["live", "gone", "old", "orphan", "me"],
      selfId: "me",
      ...clocks,
    });
    expect(plan.messagesBeforeMs).toBe(nowMs - messageTtlMs);
    expect(plan.pruneInboxes).toEqual([
      { id: "live", dropEmpty: false },
      { id: "gone", dropEmpty: false },
      { id: "old", dropEmpty: true },
      { id: "orphan", dropEmpty: true },
      { id: "me", dropEmpty: false },
    ]);
  });

  it("removes the rows of ended sessions past the newest goneRowsMax at once, and keeps the newest", () => {
    const gone = Array.from({ length: goneRowsMax + 3 }, (_, i) => ({
      ...judged(`g${i}`, "gone"),
      heartbeatMs: nowMs - i * 1_000,
    }));
    const plan = planPrune({ sessions: gone, claims: [], inboxes: [], selfId: undefined, ...clocks });
    expect(plan.removeRecords.map((r) => r.id)).toEqual(["g50", "g51", "g52"]);
    expect(plan.removeRecords[0]?.heartbeatMs).toBe(nowMs - 50_000);
  });

  it("reaps no claim whose owner a cut listing did not reach, unless that owner was read by name and is absent", () => {
    const claims = [claim("a", "unlisted"), claim("b", "absent"), claim("c", "dead")];
    const plan = planPrune({
      sessions: [judged("dead", "gone")],
      claims,
      inboxes: [],
      selfId: undefined,
      ...clocks,
      sessionsComplete: false,
      absentOwners: new Set(["absent"]),
    });
    expect(plan.reapClaims.map((c) => c.key)).toEqual(["b", "c"]);
  });

  it("measures mail against the clock this reader trusts, not a wall clock that stepped ahead of it", () => {
    const steppedMs = 25 * 60 * 60_000;
    const plan = planPrune({
      sessions: [judged("live", "active")],
      claims: [],
      inboxes: ["live"],
      selfId: undefined,
      ...clocks,
      trustedNowMs: nowMs - steppedMs,
    });
    expect(plan.messagesBeforeMs).toBe(nowMs - steppedMs - messageTtlMs);
  });

  it("expires no mail while every running peer's heartbeat reads late: the wall clock stepped under them", () => {
    const late = { ...judged("peer", "active"), heartbeatMs: nowMs - heartbeatLateMs - 1 };
    const plan = planPrune({ sessions: [late], claims: [], inboxes: ["peer"], selfId: undefined, ...clocks });
    expect(plan.messagesBeforeMs).toBe(Number.NEGATIVE_INFINITY);
    // One hung peer beside one that beats is no step of the clock.
    const beside = planPrune({
      sessions: [late, judged("beating", "active")],
      claims: [],
      inboxes: [],
      selfId: undefined,
      ...clocks,
    });
    expect(beside.messagesBeforeMs).toBe(nowMs - messageTtlMs);
    const stopped = { ...late, verdict: { kind: "running" as const, liveness: "alive" as const, stopped: true } };
    const again = planPrune({ sessions: [stopped], claims: [], inboxes: [], selfId: undefined, ...clocks });
    expect(again.messagesBeforeMs).toBe(nowMs - messageTtlMs);
  });
});
