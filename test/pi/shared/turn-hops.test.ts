// The one loop guard's channel, on Pi's real event bus: a send asks, each loaded half raises the
// count to its own, and nobody answering reads 0.
import { createEventBus } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { answerTurnHops, askTurnHops, turnHopsChannel } from "../../../src/pi/shared/turn-hops.js";

describe("the turn-hops channel", () => {
  it("reads 0 when no half answers", () => {
    expect(askTurnHops(createEventBus())).toBe(0);
  });

  it("reads the highest count any half holds, each answering with its own", () => {
    const events = createEventBus();
    let mail = 1;
    const bus = 3;
    answerTurnHops(events, () => mail);
    answerTurnHops(events, () => bus);
    expect(askTurnHops(events)).toBe(3);
    mail = 4;
    expect(askTurnHops(events)).toBe(4);
  });

  it("ignores a payload that is not a question, and a count that is not a whole number", () => {
    const events = createEventBus();
    answerTurnHops(events, () => 2);
    expect(() => events.emit(turnHopsChannel, "hops?")).not.toThrow();
    events.on(turnHopsChannel, (data) => {
      (data as { hops: number }).hops = Number.NaN;
    });
    expect(askTurnHops(events)).toBe(0);
  });
});
