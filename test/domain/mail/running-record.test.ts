import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import { recordFreshMs } from "../../../src/domain/mail/limits.js";
import {
  decodeRunningRecord,
  encodeRunningRecord,
  judgeRecord,
  type RunningRecord,
} from "../../../src/domain/mail/running-record.js";
import { isoFromMs } from "../../../src/domain/shared/text/iso-time.js";
import type { ProcessIdentity, ProcessReport } from "../../../src/ports/shared/process-probe.js";

const alice = "11111111-1111-4111-8111-111111111111" as Address;
const bob = "22222222-2222-4222-8222-222222222222" as Address;

const record: RunningRecord = {
  address: alice,
  name: "builder",
  cwd: "/home/alice/proj",
  pid: 4242,
  started: "1234567",
  state: "busy",
  waitingOn: bob,
  updated: "2024-05-01T10:00:00.000Z",
};
const decode = (value: unknown, file: Address = alice) => decodeRunningRecord(JSON.stringify(value), file);

describe("decodeRunningRecord", () => {
  // "It holds the session's address, Pi session name (when one is set), working directory, process id, idle or
  // busy state, waitingOn ..., and updated"
  it("reads every field of a full record", () => {
    expect(decode(record)._unsafeUnwrap()).toEqual(record);
  });

  it("reads a record without state, waitingOn and updated as idle, waiting on nobody, never updated", () => {
    const reading = decode({ address: alice, cwd: "/w", pid: 7 })._unsafeUnwrap();
    expect(reading).toEqual({ address: alice, cwd: "/w", pid: 7, state: "idle", waitingOn: "", updated: "" });
  });

  it("keeps the bus label, an extra field, through a write and a read; a null or empty one is none", () => {
    const labelled = { ...record, label: "code-reviewer" };
    expect(decodeRunningRecord(encodeRunningRecord(labelled), alice)._unsafeUnwrap()).toEqual(labelled);
    expect("label" in decode({ ...record, label: null })._unsafeUnwrap()).toBe(false);
    expect("label" in decode({ ...record, label: "" })._unsafeUnwrap()).toBe(false);
  });

  it("reads a missing cwd as empty", () => {
    expect(decode({ address: alice, pid: 7 })._unsafeUnwrap().cwd).toBe("");
  });

  it("reads an unknown state as idle", () => {
    expect(decode({ ...record, state: "sleeping" })._unsafeUnwrap().state).toBe("idle");
  });

  it("reads a null or empty name as no name, and a null waitingOn as nobody", () => {
    const nullName = decode({ ...record, name: null, waitingOn: null })._unsafeUnwrap();
    expect("name" in nullName).toBe(false);
    expect(nullName.waitingOn).toBe("");
    expect("name" in decode({ ...record, name: "" })._unsafeUnwrap()).toBe(false);
  });

  // "A record without started ... is judged by the process id alone."
  it("reads a missing, null or empty started as no start token", () => {
    for (const started of [undefined, null, ""]) {
      expect("started" in decode({ ...record, started })._unsafeUnwrap()).toBe(false);
    }
  });

  // Issue 8: the pid namespace and boot id ride in extra fields, which other implementations ignore.
  it("reads bootId and pidNamespace, and null or empty ones as absent", () => {
    const full = { ...record, bootId: "11111111-2222-4333-8444-555555555555", pidNamespace: "pid:[4026531836]" };
    expect(decode(full)._unsafeUnwrap()).toEqual(full);
    const blank = decode({ ...record, bootId: null, pidNamespace: "" })._unsafeUnwrap();
    expect("bootId" in blank || "pidNamespace" in blank).toBe(false);
    expect(decode({ ...record, pidNamespace: 7 }).isErr()).toBe(true);
  });

  it("tolerates extra fields and does not keep them", () => {
    expect(decode({ ...record, version: 3, extra: { a: 1 } })._unsafeUnwrap()).toEqual(record);
  });

  it("refuses a record whose address is not the one its file name claims", () => {
    expect(decode(record, bob)._unsafeUnwrapErr()).toEqual({
      kind: "bad-record",
      reason: "address does not match its file",
    });
  });

  it("refuses a record whose address is not a safe address, even when the file name matches", () => {
    const bad = "../x" as Address;
    expect(decode({ ...record, address: bad }, bad).isErr()).toBe(true);
  });

  it("refuses text that is not JSON", () => {
    expect(decodeRunningRecord("{", alice)._unsafeUnwrapErr()).toEqual({ kind: "bad-record", reason: "not JSON" });
  });

  it("refuses a record of the wrong shape", () => {
    for (const bad of [
      null,
      [],
      { address: alice },
      { ...record, pid: 0 },
      { ...record, pid: 1.5 },
      { ...record, cwd: 3 },
    ]) {
      expect(decode(bad)._unsafeUnwrapErr(), JSON.stringify(bad)).toEqual({
        kind: "bad-record",
        reason: "wrong shape",
      });
    }
  });
});

describe("encodeRunningRecord", () => {
  it("writes a record that reads back as itself, as one line", () => {
    const text = encodeRunningRecord(record);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.trimEnd()).not.toContain("\n");
    expect(decodeRunningRecord(text, alice)._unsafeUnwrap()).toEqual(record);
    const bare: RunningRecord = { address: alice, cwd: "/", pid: 1, state: "idle", waitingOn: "", updated: "" };
    const extra: RunningRecord = { ...record, bootId: "b", pidNamespace: "pid:[1]" };
    expect(decodeRunningRecord(encodeRunningRecord(extra), alice)._unsafeUnwrap()).toEqual(extra);
    expect(decodeRunningRecord(encodeRunningRecord(bare), alice)._unsafeUnwrap()).toEqual(bare);
  });

  it("throws on an invalid record instead of writing it", () => {
    const bad: RunningRecord[] = [
      { ...record, pid: 0 },
      { ...record, pid: 2.5 },
      { ...record, address: "" },
      { ...record, address: "../x" },
      { ...record, state: "sleeping" as RunningRecord["state"] },
      { ...record, pidNamespace: "" },
    ];
    for (const r of bad) {
      expect(() => encodeRunningRecord(r), JSON.stringify(r)).toThrow(/invalid running record/);
    }
  });
});

const here: ProcessIdentity = {
  pid: 100,
  started: "500",
  bootId: "11111111-2222-4333-8444-555555555555",
  pidNamespace: "pid:[4026531836]",
};
const nowMs = 1_714_557_600_000;
const minuteMs = 60_000;
const mine = { ...record, bootId: here.bootId!, pidNamespace: here.pidNamespace!, updated: isoFromMs(nowMs) };

/** An examine that records its calls and answers `report`. */
function examiner(report: ProcessReport) {
  const calls: [number, string | undefined][] = [];
  const examine = (pid: number, started: string | undefined) => {
    calls.push([pid, started]);
    return report;
  };
  return { calls, examine };
}

describe("judgeRecord", () => {
  it("asks about the record's pid and start token and takes the answer: alive, unknown, stopped or gone", () => {
    const alive = examiner({ liveness: "alive", stopped: false });
    expect(judgeRecord(mine, here, nowMs, alive.examine)).toEqual({
      kind: "running",
      liveness: "alive",
      stopped: false,
    });
    expect(alive.calls).toEqual([[4242, "1234567"]]);
    const stopped = examiner({ liveness: "alive", stopped: true });
    expect(judgeRecord(mine, here, nowMs, stopped.examine)).toMatchObject({ kind: "running", stopped: true });
    const unsure = examiner({ liveness: "unknown", stopped: false });
    expect(judgeRecord(mine, here, nowMs, unsure.examine)).toMatchObject({ kind: "running", liveness: "unknown" });
    expect(judgeRecord(mine, here, nowMs, examiner({ liveness: "gone", stopped: false }).examine)).toEqual({
      kind: "gone",
    });
  });

  // "A record without started ... is judged by the process id alone."
  it("passes no start token for a record without one, and judges a record without extra fields by pid and token", () => {
    const { started: _omit, ...withoutStarted } = record;
    const alive = examiner({ liveness: "alive", stopped: false });
    expect(judgeRecord(withoutStarted, here, nowMs, alive.examine)).toMatchObject({ kind: "running" });
    expect(alive.calls).toEqual([[4242, undefined]]);
  });

  it("judges a record of another boot gone without asking about its pid", () => {
    const asked = examiner({ liveness: "alive", stopped: false });
    const earlier = { ...mine, bootId: "99999999-2222-4333-8444-555555555555" };
    expect(judgeRecord(earlier, here, nowMs, asked.examine)).toEqual({ kind: "gone" });
    expect(asked.calls).toEqual([]);
    // Where this machine's boot id cannot be read, the pid and token decide.
    expect(judgeRecord(earlier, { ...here, bootId: undefined }, nowMs, asked.examine)).toMatchObject({
      kind: "running",
    });
  });

  // Issue 8: a pid recorded in another pid namespace names nothing (or someone else) here.
  it("never asks about the pid of a record from another pid namespace: elsewhere, fresh for recordFreshMs", () => {
    const asked = examiner({ liveness: "gone", stopped: false });
    const sandboxed = { ...mine, pidNamespace: "pid:[4026532389]" };
    expect(judgeRecord(sandboxed, here, nowMs, asked.examine)).toEqual({ kind: "elsewhere", fresh: true });
    const edge = nowMs + recordFreshMs;
    expect(judgeRecord(sandboxed, here, edge, asked.examine)).toEqual({ kind: "elsewhere", fresh: true });
    expect(judgeRecord(sandboxed, here, edge + 1, asked.examine)).toEqual({ kind: "elsewhere", fresh: false });
    expect(judgeRecord(sandboxed, here, nowMs - 60 * minuteMs, asked.examine)).toMatchObject({ fresh: true });
    expect(judgeRecord({ ...sandboxed, updated: "" }, here, nowMs, asked.examine)).toMatchObject({ fresh: false });
    expect(asked.calls).toEqual([]);
  });

  it("checks the namespace before the boot: another kernel's sandbox has its own boot id", () => {
    const asked = examiner({ liveness: "alive", stopped: false });
    const gvisor = { ...mine, pidNamespace: "pid:[1]", bootId: "99999999-2222-4333-8444-555555555555" };
    expect(judgeRecord(gvisor, here, nowMs, asked.examine)).toEqual({ kind: "elsewhere", fresh: true });
  });

  it("treats a namespace it cannot compare (none readable here) as another", () => {
    const asked = examiner({ liveness: "alive", stopped: false });
    expect(judgeRecord(mine, { ...here, pidNamespace: undefined }, nowMs, asked.examine)).toMatchObject({
      kind: "elsewhere",
    });
    const { pidNamespace: _omit, ...plain } = mine;
    expect(judgeRecord(plain, { ...here, pidNamespace: undefined }, nowMs, asked.examine)).toMatchObject({
      kind: "running",
    });
  });
});
