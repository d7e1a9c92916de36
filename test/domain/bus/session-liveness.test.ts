import { describe, expect, it } from "vitest";
import { sessionTtlMs } from "../../../src/domain/bus/limits.js";
import { judgeSession, namesProcess } from "../../../src/domain/bus/session-liveness.js";
import type { ProcessIdentity, ProcessReport } from "../../../src/ports/shared/process-probe.js";
import { sessionRecord } from "./fixtures.js";

const here: ProcessIdentity = { pid: 1, started: "s", bootId: "b", pidNamespace: "ns" };
const nowMs = 1_000_000_000;
const report = (liveness: ProcessReport["liveness"]) => (): ProcessReport => ({ liveness, stopped: false });
const at = (ageMs: number, fields = {}) => ({ record: sessionRecord("a", fields), heartbeatMs: nowMs - ageMs });

/** Silence this reader watched: none yet, or the whole TTL. */
const unseen = 0;
const watched = sessionTtlMs;

describe("judgeSession", () => {
  it("is active while its process runs and its heartbeat is within the TTL", () => {
    expect(judgeSession(at(sessionTtlMs), here, nowMs, watched, report("alive")).state).toBe("active");
  });

  it("is gone at once when its process is provably dead, heartbeat fresh or not", () => {
    expect(judgeSession(at(0), here, nowMs, unseen, report("gone")).state).toBe("gone");
  });

  it("expires a dead process's row once its heartbeat is past the TTL by the wall clock alone", () => {
    expect(judgeSession(at(sessionTtlMs + 1), here, nowMs, unseen, report("gone")).state).toBe("expired");
  });

  it("holds while liveness cannot be told, until the TTL", () => {
    expect(judgeSession(at(sessionTtlMs - 1), here, nowMs, watched, report("unknown")).state).toBe("active");
    expect(judgeSession(at(sessionTtlMs + 1), here, nowMs, watched, report("unknown")).state).toBe("expired");
  });

  it("expires a hung process (alive, silent) past the TTL that this reader watched pass", () => {
    expect(judgeSession(at(sessionTtlMs + 1), here, nowMs, watched, report("alive")).state).toBe("expired");
  });

  it("does not expire a live peer on one wall-clock reading: a clock step ages every heartbeat at once", () => {
    const jumped = at(sessionTtlMs + 25 * 60 * 60_000);
    expect(judgeSession(jumped, here, nowMs, unseen, report("alive")).state).toBe("active");
    expect(judgeSession(jumped, here, nowMs, watched - 1, report("alive")).state).toBe("active");
    expect(judgeSession(jumped, here, nowMs, watched - 1, report("unknown")).state).toBe("active");
  });

  it("judges a session from another pid namespace by its heartbeat", () => {
    const elsewhere = { pidNamespace: "other" };
    expect(judgeSession(at(1_000, elsewhere), here, nowMs, watched, report("gone")).state).toBe("active");
    expect(judgeSession(at(sessionTtlMs + 1, elsewhere), here, nowMs, unseen, report("gone")).state).toBe("active");
    expect(judgeSession(at(sessionTtlMs + 1, elsewhere), here, nowMs, watched, report("gone")).state).toBe("expired");
  });

  it("judges a record without a pid by its heartbeat, never as dead for the missing pid", () => {
    const { pid: _pid, ...record } = sessionRecord("a");
    const stored = (ageMs: number) => ({ record, heartbeatMs: nowMs - ageMs });
    expect(judgeSession(stored(1_000), here, nowMs, unseen, report("gone")).state).toBe("active");
    expect(judgeSession(stored(sessionTtlMs + 1), here, nowMs, watched, report("gone")).state).toBe("expired");
  });

  it("reads a heartbeat ahead of the clock as fresh", () => {
    expect(judgeSession(at(-60_000), here, nowMs, watched, report("unknown")).state).toBe("active");
  });
});

describe("namesProcess", () => {
  it("matches pid and start token, both", () => {
    expect(namesProcess(sessionRecord("a", { pid: 1, started: "s" }), here)).toBe(true);
    expect(namesProcess(sessionRecord("a", { pid: 1, started: "t" }), here)).toBe(false);
    expect(namesProcess(sessionRecord("a", { pid: 2, started: "s" }), here)).toBe(false);
  });
});
