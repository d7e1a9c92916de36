import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isoFromMs, msFromIso } from "../../../../src/domain/shared/text/iso-time.js";

describe("isoFromMs", () => {
  it("formats the epoch", () => {
    expect(isoFromMs(0)).toBe("1970-01-01T00:00:00.000Z");
  });

  it("formats the leap day 2024-02-29 and the day after it", () => {
    expect(isoFromMs(Date.UTC(2024, 1, 29, 12, 34, 56, 789))).toBe("2024-02-29T12:34:56.789Z");
    expect(isoFromMs(Date.UTC(2024, 1, 29, 23, 59, 59, 999) + 1)).toBe("2024-03-01T00:00:00.000Z");
  });

  it("formats the leap day of a year divisible by 400 and skips it in a century year", () => {
    expect(isoFromMs(Date.UTC(2000, 1, 29))).toBe("2000-02-29T00:00:00.000Z");
    expect(isoFromMs(Date.UTC(2100, 1, 28, 23, 59, 59, 999) + 1)).toBe("2100-03-01T00:00:00.000Z");
  });

  it("formats the last millisecond of a year and the first of the next", () => {
    expect(isoFromMs(Date.UTC(2023, 11, 31, 23, 59, 59, 999))).toBe("2023-12-31T23:59:59.999Z");
    expect(isoFromMs(Date.UTC(2024, 0, 1))).toBe("2024-01-01T00:00:00.000Z");
  });

  it("drops a fraction of a millisecond as Date does", () => {
    expect(isoFromMs(1_700_000_000_123.9)).toBe(new Date(1_700_000_000_123.9).toISOString());
  });

  it("equals new Date(ms).toISOString() from 1970 to 2100 (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        expect(isoFromMs(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("msFromIso", () => {
  it("reads back what isoFromMs writes, from 1970 to 2100 (property)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), (ms) => {
        expect(msFromIso(isoFromMs(ms))).toBe(ms);
      }),
      { numRuns: 2_000 },
    );
  });

  it("reads seconds without a fraction and cuts a longer fraction to milliseconds, as Date.parse does", () => {
    for (const text of ["2024-02-29T23:59:59Z", "2024-03-01T00:00:00.5Z", "2023-11-14T22:13:20.123456789Z"]) {
      expect(msFromIso(text)).toBe(Date.parse(text));
    }
  });

  it("refuses any other text: offsets, no zone, out-of-range fields, empty", () => {
    for (const text of ["", "2024-05-01", "2024-05-01T10:00:00", "2024-05-01T10:00:00+02:00", "2024-13-01T00:00:00Z"]) {
      expect(msFromIso(text), text).toBeUndefined();
    }
    expect(msFromIso("2024-05-01T24:00:00Z")).toBeUndefined();
  });
});
