import { describe, expect, it } from "vitest";
import { createVirtualClock } from "../../../src/adapters/memory/virtual-clock.js";
import { createRepeatingTimer, createTicker, type RunOutcome } from "../../../src/domain/shared/ticker.js";

describe("createTicker", () => {
  it("is due on every n-th tick, never between", () => {
    const ticker = createTicker(3);
    const due = Array.from({ length: 9 }, () => ticker.tick());
    expect(due).toEqual([false, false, true, false, false, true, false, false, true]);
  });

  it("is due at every tick when its cadence is one", () => {
    const ticker = createTicker(1);
    expect([ticker.tick(), ticker.tick()]).toEqual([true, true]);
  });

  it("refuses a cadence that is not a whole number of ticks", () => {
    expect(() => createTicker(0)).toThrow();
    expect(() => createTicker(2.5)).toThrow();
  });
});

describe("createRepeatingTimer", () => {
  const every = 100;

  function counted(outcomes: (n: number) => RunOutcome | "throw") {
    const clock = createVirtualClock(0);
    let runs = 0;
    const timer = createRepeatingTimer(clock, every, () => {
      runs++;
      const outcome = outcomes(runs);
      if (outcome === "throw") throw new Error("a bad run");
      return outcome;
    });
    return { clock, timer, runs: () => runs };
  }

  it("runs every interval from its start while the run asks again, one timer at a time", () => {
    const { clock, timer, runs } = counted(() => "again");
    timer.start();
    timer.start();
    clock.advance(every * 5);
    expect(runs()).toBe(5);
    expect(clock.pendingTimers()).toBe(1);
  });

  it("stops when a run says it is done, and when stopped", () => {
    const done = counted((n) => (n === 2 ? "done" : "again"));
    done.timer.start();
    done.clock.advance(every * 5);
    expect(done.runs()).toBe(2);
    expect(done.timer.armed()).toBe(false);
    const stopped = counted(() => "again");
    stopped.timer.start();
    stopped.clock.advance(every);
    stopped.timer.stop();
    stopped.clock.advance(every * 3);
    expect(stopped.runs()).toBe(1);
  });

  it("arms again after a run that threw, so one bad run does not end the later ones", () => {
    const { clock, timer, runs } = counted((n) => (n === 1 ? "throw" : "again"));
    timer.start();
    expect(() => clock.advance(every)).toThrow("a bad run");
    clock.advance(every * 2);
    expect(runs()).toBe(3);
  });

  it("leaves the decision to a run that stopped or restarted the timer itself", () => {
    const clock = createVirtualClock(0);
    let runs = 0;
    const timer = createRepeatingTimer(clock, every, () => {
      runs++;
      if (runs === 1) timer.restart();
      if (runs === 2) timer.stop();
      return "again";
    });
    timer.start();
    clock.advance(every * 5);
    expect(runs).toBe(2);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("restarts a whole interval from now", () => {
    const { clock, timer, runs } = counted(() => "again");
    timer.start();
    clock.advance(every - 1);
    timer.restart();
    clock.advance(every - 1);
    expect(runs()).toBe(0);
    clock.advance(1);
    expect(runs()).toBe(1);
  });
});
