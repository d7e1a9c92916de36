import { describe, expect, it } from "vitest";
import { judgeProcess } from "../../../src/domain/shared/liveness.js";
import type { ProcessIdentity, ProcessReport } from "../../../src/ports/shared/process-probe.js";

const here: ProcessIdentity = { pid: 1, started: "10", bootId: "boot-a", pidNamespace: "pid:[1]" };
const alive = (): ProcessReport => ({ liveness: "alive", stopped: false });
const dead = (): ProcessReport => ({ liveness: "gone", stopped: false });
const freshMs = 1_000;

describe("judgeProcess", () => {
  it("asks the probe about the recorded pid and start token", () => {
    const asked: [number, string | undefined][] = [];
    const verdict = judgeProcess({ pid: 42, started: "77" }, here, 0, freshMs, (pid, started) => {
      asked.push([pid, started]);
      return { liveness: "unknown", stopped: true };
    });
    expect(asked).toEqual([[42, "77"]]);
    expect(verdict).toEqual({ kind: "running", liveness: "unknown", stopped: true });
  });

  it("calls a process the probe cannot find gone, however fresh its heartbeat", () => {
    expect(judgeProcess({ pid: 42 }, here, 0, freshMs, dead)).toEqual({ kind: "gone" });
  });

  it("calls a record from another boot gone without asking the probe", () => {
    const verdict = judgeProcess({ pid: 42, bootId: "boot-b" }, here, 0, freshMs, () => {
      throw new Error("probed");
    });
    expect(verdict).toEqual({ kind: "gone" });
  });

  it("judges a record from another pid namespace by its heartbeat alone", () => {
    const elsewhere = { pid: 42, pidNamespace: "pid:[2]", bootId: "boot-b" };
    expect(judgeProcess(elsewhere, here, freshMs, freshMs, dead)).toEqual({ kind: "elsewhere", fresh: true });
    expect(judgeProcess(elsewhere, here, freshMs + 1, freshMs, alive)).toEqual({ kind: "elsewhere", fresh: false });
    expect(judgeProcess(elsewhere, here, -5_000, freshMs, dead)).toEqual({ kind: "elsewhere", fresh: true });
  });

  it("judges a record without namespace or boot id by pid and token alone", () => {
    expect(judgeProcess({ pid: 42 }, here, 10 * freshMs, freshMs, alive).kind).toBe("running");
  });
});
