import { describe, expect, it } from "vitest";
import { createVirtualClock } from "../../../src/adapters/memory/virtual-clock.js";

describe("createVirtualClock", () => {
  it("starts at the given time and moves only when advanced", () => {
    const clock = createVirtualClock(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.now()).toBe(1_000);
    expect(clock.advance(250)).toBe(0);
    expect(clock.now()).toBe(1_250);
  });

  it("fires due timers by due time, then by scheduling order, each at its own time", () => {
    const clock = createVirtualClock(0);
    const fired: string[] = [];
    clock.setTimer(30, () => fired.push(`c@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`a@${clock.now()}`));
    clock.setTimer(10, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(31, () => fired.push("late"));
    expect(clock.advance(30)).toBe(3);
    expect(fired).toEqual(["a@10", "b@10", "c@30"]);
    expect(clock.pendingTimers()).toBe(1);
  });

  it("fires a timer scheduled by a fired callback when it falls due within the same advance", () => {
    const clock = createVirtualClock(0);
    const fired: string[] = [];
    clock.setTimer(10, () => {
      clock.setTimer(5, () => fired.push(`inner@${clock.now()}`));
      clock.setTimer(50, () => fired.push("too late"));
    });
    clock.advance(20);
    expect(fired).toEqual(["inner@15"]);
    expect(clock.nextTimerAt()).toBe(60);
  });

  it("never fires a cancelled timer, and cancelling twice or after firing is harmless", () => {
    const clock = createVirtualClock(0);
    let fired = 0;
    const timer = clock.setTimer(10, () => fired++);
    timer.cancel();
    timer.cancel();
    const other = clock.setTimer(10, () => fired++);
    clock.advance(10);
    other.cancel();
    expect(fired).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
    expect(clock.nextTimerAt()).toBeUndefined();
  });

  it("runs deferred callbacks in order, only when asked, including ones deferred while running", () => {
    const clock = createVirtualClock(0);
    const ran: string[] = [];
    clock.defer(() => {
      ran.push("first");
      clock.defer(() => ran.push("queued by first"));
    });
    clock.defer(() => ran.push("second"));
    clock.defer(() => ran.push("cancelled")).cancel();
    expect(ran).toEqual([]);
    expect(clock.pendingDeferred()).toBe(2);
    expect(clock.runDeferred()).toBe(3);
    expect(ran).toEqual(["first", "second", "queued by first"]);
    expect(clock.advance(100)).toBe(0);
  });

  it("stops a callback that defers itself forever instead of hanging", () => {
    const clock = createVirtualClock(0);
    const again = (): void => void clock.defer(again);
    clock.defer(again);
    expect(() => clock.runDeferred()).toThrow(/deferred callbacks in one run/);
  });

  it("stops a timer that reschedules itself with no delay instead of hanging", () => {
    const clock = createVirtualClock(0);
    const again = (): void => void clock.setTimer(0, again);
    clock.setTimer(0, again);
    expect(() => clock.advance(1)).toThrow(/timers fired in one advance/);
  });

  it("shifts now() on a jump, either way, without firing or delaying timers", () => {
    const clock = createVirtualClock(10_000);
    let fired = 0;
    clock.setTimer(100, () => fired++);
    clock.jump(3_600_000);
    expect(clock.now()).toBe(3_610_000);
    expect(fired).toBe(0);
    expect(clock.nextTimerAt()).toBe(3_610_100);
    clock.jump(-7_200_000);
    expect(clock.now()).toBe(-3_590_000);
    clock.advance(100);
    expect(fired).toBe(1);
    expect(clock.now()).toBe(-3_589_900);
  });

  it("rejects a negative or non-finite advance and treats a negative delay as zero", () => {
    const clock = createVirtualClock(0);
    expect(() => clock.advance(-1)).toThrow(RangeError);
    expect(() => clock.advance(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    expect(() => clock.jump(Number.NaN)).toThrow(RangeError);
    let fired = 0;
    clock.setTimer(-50, () => fired++);
    expect(clock.nextTimerAt()).toBe(0);
    clock.advance(0);
    expect(fired).toBe(1);
  });
});
