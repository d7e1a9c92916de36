import { describe, expect, it } from "vitest";
import { sessionTtlMs } from "../../../src/domain/bus/limits.js";
import { judgeSession, namesProcess } from "../../../src/domain/bus/session-liveness.js";
import type { ProcessIdentity, ProcessReport } from "../../../src/ports/shared/process-probe.js";
import { sessionRecord } from "./fixtures.js";

const here: ProcessIdentity = { pid: 1, started: "s", bootId: "b", pidNamespace: "ns" };
const nowMs = 1_000_000_000;
const report = (liveness: ProcessReport["liveness"]) => (): ProcessReport => ({ liveness, stopped: false });
const at = (ageMs: number, fields = {}) => ({ record: sessionRecord("a", fields), heartbeatMs: nowMs - ageMs });

describe("judgeSession (A3)", () => {
  it("is active while its process runs and its heartbeat is within the TTL", () => {
    expect(judgeSession(at(sessionTtlMs), here, nowMs, report("alive")).state).toBe("active");
  });

  it("is gone at once when its process is provably dead, heartbeat fresh or not", () => {
    expect(judgeSession(at(0), here, nowMs, report("gone")).state).toBe("gone");
  });

  it("holds while liveness cannot be told, until the TTL", () => {
    expect(judgeSession(at(sessionTtlMs - 1), here, nowMs, report("unknown")).state).toBe("active");
    expect(judgeSession(at(sessionTtlMs + 1), here, nowMs, report("unknown")).state).toBe("expired");
  });

  it("expires a hung process (alive, silent) past the TTL", () => {
    expect(judgeSession(at(sessionTtlMs + 1), here, nowMs, report("alive")).state).toBe("expired");
  });

  it("judges a session from another pid namespace by its heartbeat", () => {
    const elsewhere = { pidNamespace: "other" };
    expect(judgeSession(at(1_000, elsewhere), here, nowMs, report("gone")).state).toBe("active");
    expect(judgeSession(at(sessionTtlMs + 1, elsewhere), here, nowMs, report("gone")).state).toBe("expired");
  });

  it("reads a heartbeat ahead of the clock as fresh", () => {
    expect(judgeSession(at(-60_000), here, nowMs, report("unknown")).state).toBe("active");
  });
});

describe("namesProcess (A34)", () => {
  it("matches pid and start token, both", () => {
    expect(namesProcess(sessionRecord("a", { pid: 1, started: "s" }), here)).toBe(true);
    expect(namesProcess(sessionRecord("a", { pid: 1, started: "t" }), here)).toBe(false);
    expect(namesProcess(sessionRecord("a", { pid: 2, started: "s" }), here)).toBe(false);
  });
});
