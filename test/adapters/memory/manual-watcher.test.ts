import { describe, expect, it } from "vitest";
import { createManualWatcher } from "../../../src/adapters/memory/manual-watcher.js";

function counter(): { hint: () => void; count: () => number } {
  let hints = 0;
  return { hint: () => void hints++, count: () => hints };
}

describe("createManualWatcher", () => {
  it("delivers a hint, synchronously, to each open watch of the notified folder only", () => {
    const watcher = createManualWatcher();
    const a = counter();
    const b = counter();
    const other = counter();
    watcher.watch("/mail/a/new", a.hint);
    watcher.watch("/mail/a/new/", b.hint);
    watcher.watch("/mail/b/new", other.hint);
    expect(watcher.notify("/mail/a/new")).toBe(2);
    expect([a.count(), b.count(), other.count()]).toEqual([1, 1, 0]);
  });

  it("never hints a closed handle, and closing twice is harmless", () => {
    const watcher = createManualWatcher();
    const a = counter();
    const handle = watcher.watch("/d", a.hint);
    handle.close();
    handle.close();
    expect(watcher.notify("/d")).toBe(0);
    expect(a.count()).toBe(0);
    expect(watcher.watchedDirs()).toEqual([]);
  });

  it("drops exactly the next N hints", () => {
    const watcher = createManualWatcher();
    const a = counter();
    watcher.watch("/d", a.hint);
    watcher.dropNext(2);
    watcher.notify("/d");
    watcher.notify("/d");
    expect(a.count()).toBe(0);
    watcher.notify("/d");
    expect(a.count()).toBe(1);
  });

  it("drops the hints a predicate selects until the predicate is removed", () => {
    const watcher = createManualWatcher();
    const a = counter();
    const b = counter();
    watcher.watch("/a", a.hint);
    watcher.watch("/b", b.hint);
    watcher.setDropFilter((dir) => dir === "/a");
    watcher.notify("/a");
    watcher.notify("/b");
    expect([a.count(), b.count()]).toEqual([0, 1]);
    watcher.setDropFilter(undefined);
    watcher.notify("/a");
    expect(a.count()).toBe(1);
  });

  it("holds hints while delayed and delivers them on flush, skipping watches closed meanwhile", () => {
    const watcher = createManualWatcher();
    const a = counter();
    const b = counter();
    watcher.watch("/d", a.hint);
    const closing = watcher.watch("/d", b.hint);
    watcher.setDelayed(true);
    expect(watcher.notify("/d")).toBe(2);
    watcher.notify("/d");
    expect([a.count(), b.count(), watcher.queuedHints()]).toEqual([0, 0, 4]);
    closing.close();
    expect(watcher.flush()).toBe(2);
    expect([a.count(), b.count(), watcher.queuedHints()]).toEqual([2, 0, 0]);
  });

  it("leaves hints queued by a callback during flush for the next flush", () => {
    const watcher = createManualWatcher();
    let hints = 0;
    watcher.watch("/d", () => {
      hints++;
      watcher.notify("/d");
    });
    watcher.setDelayed(true);
    watcher.notify("/d");
    expect(watcher.flush()).toBe(1);
    expect([hints, watcher.queuedHints()]).toEqual([1, 1]);
  });

  it("lists each watched folder once, sorted", () => {
    const watcher = createManualWatcher();
    watcher.watch("/b", () => {});
    watcher.watch("/a", () => {});
    watcher.watch("/b/", () => {});
    expect(watcher.watchedDirs()).toEqual(["/a", "/b"]);
  });

  it("does not hint a watch opened by a callback for the change that opened it", () => {
    const watcher = createManualWatcher();
    const late = counter();
    watcher.watch("/d", () => void watcher.watch("/d", late.hint));
    watcher.notify("/d");
    expect(late.count()).toBe(0);
    watcher.notify("/d");
    expect(late.count()).toBe(1);
  });
});
