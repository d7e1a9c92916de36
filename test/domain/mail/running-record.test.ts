import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import {
  decodeRunningRecord,
  encodeRunningRecord,
  type RunningRecord,
  recordLiveness,
} from "../../../src/domain/mail/running-record.js";

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
    expect(decodeRunningRecord(encodeRunningRecord(bare), alice)._unsafeUnwrap()).toEqual(bare);
  });

  it("throws on an invalid record instead of writing it", () => {
    const bad: RunningRecord[] = [
      { ...record, pid: 0 },
      { ...record, pid: 2.5 },
      { ...record, address: "" },
      { ...record, address: "../x" },
      { ...record, state: "sleeping" as RunningRecord["state"] },
    ];
    for (const r of bad) {
      expect(() => encodeRunningRecord(r), JSON.stringify(r)).toThrow(/invalid running record/);
    }
  });
});

describe("recordLiveness", () => {
  it("asks the probe about the record's pid and start token and returns its answer", () => {
    const calls: [number, string | undefined][] = [];
    const answer = recordLiveness(record, (pid, started) => {
      calls.push([pid, started]);
      return "gone";
    });
    expect(answer).toBe("gone");
    expect(calls).toEqual([[4242, "1234567"]]);
  });

  // "A record without started ... is judged by the process id alone."
  it("passes no start token for a record without one", () => {
    const { started: _omit, ...withoutStarted } = record;
    const seen: (string | undefined)[] = [];
    expect(
      recordLiveness(withoutStarted, (_pid, started) => {
        seen.push(started);
        return "alive";
      }),
    ).toBe("alive");
    expect(seen).toEqual([undefined]);
  });
});
