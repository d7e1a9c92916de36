import { describe, expect, it } from "vitest";
import {
  checkHopLimit,
  describeHopRefusal,
  freshHops,
  type HopState,
  onInput,
  onMailEntered,
  onSettled,
} from "../../../src/domain/mail/hop-rules.js";

const mailed = (...hops: number[]): HopState => hops.reduce(onMailEntered, freshHops);

describe("hop count", () => {
  it("starts at 0", () => {
    expect(freshHops.count).toBe(0);
    expect(checkHopLimit(freshHops, 5)).toBeUndefined();
  });

  // "Otherwise it is the highest hops plus one among the envelopes that started the turn or steered into it"
  it("rises to the highest hops plus one among the mail that entered the turn", () => {
    expect(mailed(0).count).toBe(1);
    expect(mailed(2).count).toBe(3);
    expect(mailed(2, 4, 1).count).toBe(5);
    expect(mailed(4, 1).count).toBe(5);
  });

  // "It is 0 once the user starts or steers the turn: any Pi input event"
  it("drops to 0 on input", () => {
    expect(onInput(mailed(3)).count).toBe(0);
  });

  // The stricter reading: mail that steers in after the input raises the count again, so typing
  // once does not let a chain escape the loop guard.
  it("rises again with mail that steers in after the input; the mail before the input no longer counts", () => {
    const state = onMailEntered(onMailEntered(onInput(mailed(3)), 7), 1);
    expect(state.count).toBe(8);
    expect(checkHopLimit(state, 5)).toEqual({ kind: "hop-limit", hops: 8, limit: 5 });
    expect(onMailEntered(onInput(mailed(9)), 0).count).toBe(1);
  });

  // "The count starts afresh when the run settles."
  it("starts afresh when the run settles, and mail counts again after that", () => {
    expect(onSettled(mailed(4))).toEqual(freshHops);
    const afterInputRun = onSettled(onInput(freshHops));
    expect(onMailEntered(afterInputRun, 2).count).toBe(3);
  });
});

describe("checkHopLimit", () => {
  // "refused before anything is written once the count has reached the limit"
  it("refuses once the count has reached the limit", () => {
    expect(checkHopLimit(mailed(4), 5)).toEqual({ kind: "hop-limit", hops: 5, limit: 5 });
    expect(checkHopLimit(mailed(9), 5)).toEqual({ kind: "hop-limit", hops: 10, limit: 5 });
  });

  it("allows a count below the limit", () => {
    expect(checkHopLimit(mailed(3), 5)).toBeUndefined();
    expect(checkHopLimit(mailed(0), 2)).toBeUndefined();
  });

  it("honours a configured limit of 1: any mail-started turn is refused", () => {
    expect(checkHopLimit(mailed(0), 1)).toEqual({ kind: "hop-limit", hops: 1, limit: 1 });
    expect(checkHopLimit(freshHops, 1)).toBeUndefined();
  });
});

describe("describeHopRefusal", () => {
  // "The refusal says that a person typing in either session starts the count again."
  it("says nothing was sent and that a person typing in either session starts the count again", () => {
    const text = describeHopRefusal({ kind: "hop-limit", hops: 5, limit: 5 });
    expect(text).toContain("5 hops");
    expect(text).toContain("the limit is 5");
    expect(text).toContain("Nothing was sent.");
    expect(text).toContain("A person typing in either session starts the count again.");
  });
});
