import { describe, expect, it } from "vitest";
import { createTicker } from "../../../src/domain/shared/ticker.js";

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
