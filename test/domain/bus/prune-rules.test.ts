import { describe, expect, it } from "vitest";
import { messageTtlMs } from "../../../src/domain/bus/limits.js";
import { planPrune } from "../../../src/domain/bus/prune-rules.js";
import { judged } from "./fixtures.js";

const nowMs = 5_000_000_000;
const claim = (key: string, owner: string, joinToken = `token-${owner}`) => ({ key, owner, joinToken });

describe("planPrune", () => {
  it("removes expired records by their token and the heartbeat they were judged by, and keeps active and gone ones", () => {
    const plan = planPrune({
      sessions: [judged("a", "active"), judged("g", "gone"), judged("x", "expired")],
      claims: [],
      inboxes: [],
      selfId: undefined,
      nowMs,
    });
    expect(plan.removeRecords).toEqual([{ id: "x", joinToken: "token-x", heartbeatMs: 0 }]);
  });

  it("never prunes this session's own record", () => {
    const plan = planPrune({ sessions: [judged("me", "expired")], claims: [], inboxes: [], selfId: "me", nowMs });
    expect(plan.removeRecords).toEqual([]);
  });

  it("keeps this session's own claims even when its heartbeat looks expired", () => {
    const own = claim("a", "me");
    const plan = planPrune({ sessions: [judged("me", "expired")], claims: [own], inboxes: [], selfId: "me", nowMs });
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
      nowMs,
    });
    expect(plan.reapClaims.map((c) => c.key)).toEqual(["b", "c", "d", "e"]);
  });

  it("prunes every inbox by the message TTL and drops the folders no kept record names", () => {
    const plan = planPrune({
      sessions: [judged("live", "active"), judged("gone", "gone"), judged("old", "expired")],
      claims: [],
      inboxes: ["live", "gone", "old", "orphan", "me"],
      selfId: "me",
      nowMs,
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
});
