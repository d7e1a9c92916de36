import { describe, expect, it } from "vitest";
import { parseTimeout } from "../../src/cli/commands/send.js";

describe("switchboard ask --timeout", () => {
  it("reads seconds bare or with a unit", () => {
    expect(parseTimeout("90")).toBe(90_000);
    expect(parseTimeout("90s")).toBe(90_000);
    expect(parseTimeout("1.5s")).toBe(1500);
    expect(parseTimeout("250ms")).toBe(250);
    expect(parseTimeout("10m")).toBe(600_000);
  });

  it("refuses what is not a duration, zero, and more than an ask waits", () => {
    expect(parseTimeout("soon")).toMatch(/is not a duration/);
    expect(parseTimeout("-5s")).toMatch(/is not a duration/);
    expect(parseTimeout("0")).toMatch(/more than 0/);
    expect(parseTimeout("11m")).toMatch(/at most 10m/);
    expect(parseTimeout("1h")).toMatch(/at most 10m/);
  });
});
