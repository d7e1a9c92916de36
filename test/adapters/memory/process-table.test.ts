import { describe, expect, it } from "vitest";
import { createProcessTable } from "../../../src/adapters/memory/process-table.js";

describe("createProcessTable", () => {
  it("hands out pids counting up from 1000, each with its own start token", () => {
    const table = createProcessTable();
    const a = table.spawn();
    const b = table.spawn();
    expect([a.pid, b.pid]).toEqual([1000, 1001]);
    expect(a.started).toBeDefined();
    expect(a.started).not.toBe(b.started);
    expect(createProcessTable().spawn()).toEqual(a);
  });

  it("judges a running process alive by its token or by its pid alone", () => {
    const table = createProcessTable();
    const a = table.spawn();
    expect(table.check(a.pid, a.started)).toBe("alive");
    expect(table.check(a.pid, undefined)).toBe("alive");
    expect(table.status(a.pid)).toBe("running");
  });

  it("judges a crashed or exited process gone, and a never-used pid gone", () => {
    const table = createProcessTable();
    const a = table.spawn();
    const b = table.spawn();
    table.crash(a.pid);
    table.exit(b.pid);
    expect(table.check(a.pid, a.started)).toBe("gone");
    expect(table.check(b.pid, undefined)).toBe("gone");
    expect([table.status(a.pid), table.status(b.pid), table.status(5)]).toEqual(["crashed", "exited", "unused"]);
    expect(table.check(5, undefined)).toBe("gone");
  });

  it("judges the old token gone after pid reuse, while the new process is alive", () => {
    const table = createProcessTable();
    const old = table.spawn();
    table.crash(old.pid);
    const reused = table.reuse(old.pid);
    expect(reused.pid).toBe(old.pid);
    expect(reused.started).not.toBe(old.started);
    expect(table.check(old.pid, old.started)).toBe("gone");
    expect(table.check(old.pid, reused.started)).toBe("alive");
    expect(table.check(old.pid, undefined)).toBe("alive");
  });

  it("skips a pid that reuse() took when spawning", () => {
    const table = createProcessTable();
    table.reuse(1000);
    expect(table.spawn().pid).toBe(1001);
  });

  it("answers unknown while a pid is marked unknown, and the real verdict after", () => {
    const table = createProcessTable();
    const a = table.spawn();
    table.setUnknown(a.pid, true);
    expect(table.check(a.pid, a.started)).toBe("unknown");
    table.crash(a.pid);
    expect(table.check(a.pid, a.started)).toBe("unknown");
    table.setUnknown(a.pid, false);
    expect(table.check(a.pid, a.started)).toBe("gone");
  });

  it("models an unreadable start time: no started in the identity, unknown against a token", () => {
    const table = createProcessTable();
    const a = table.spawn({ startTokenReadable: false });
    expect(a.started).toBeUndefined();
    expect(table.check(a.pid, undefined)).toBe("alive");
    expect(table.check(a.pid, "table:1000:1")).toBe("unknown");
  });

  it("gives each process a probe whose self() is that process and whose checks see the table", () => {
    const table = createProcessTable();
    const a = table.spawn();
    const b = table.spawn();
    const probeA = table.probeFor(a.pid);
    expect(probeA.self()).toEqual(a);
    expect(probeA.check(b.pid, b.started)).toBe("alive");
    table.crash(b.pid);
    expect(probeA.check(b.pid, b.started)).toBe("gone");
    expect(() => table.probeFor(b.pid)).toThrow(/not running/);
  });

  it("calls invalid pids gone and refuses to crash or exit what is not running", () => {
    const table = createProcessTable();
    for (const pid of [0, -1, 1.5, Number.NaN, 2 ** 22 + 1]) expect(table.check(pid, undefined)).toBe("gone");
    expect(() => table.crash(1000)).toThrow(/not running/);
    const a = table.spawn();
    table.exit(a.pid);
    expect(() => table.exit(a.pid)).toThrow(/not running/);
    expect(() => table.reuse(-1)).toThrow(RangeError);
  });
});
