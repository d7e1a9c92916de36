import { describe, expect, it } from "vitest";
import { defaultConfig, readConfig } from "../../../src/domain/mail/config.js";

const path = "/home/u/.pi/agent/session-mail.json";
const fromText = (text: string) => readConfig({ kind: "text", text }, path);
const fromObject = (value: unknown) => fromText(JSON.stringify(value));

describe("readConfig", () => {
  // "Default 5." / "Default 30."
  it("has the defaults of 5 hops and 30 days", () => {
    expect(defaultConfig).toEqual({ hopLimit: 5, pruneAfterDays: 30 });
  });

  // "A missing file, or one without a key, means that key's default."
  it("uses the defaults without a problem when the file is missing", () => {
    expect(readConfig({ kind: "missing" }, path)).toEqual({ config: defaultConfig, problem: undefined });
  });

  it("uses the default without a problem for a missing key", () => {
    expect(fromObject({})).toEqual({ config: defaultConfig, problem: undefined });
    expect(fromObject({ hopLimit: 8 })).toEqual({ config: { hopLimit: 8, pruneAfterDays: 30 }, problem: undefined });
    expect(fromObject({ pruneAfterDays: 2 })).toEqual({
      config: { hopLimit: 5, pruneAfterDays: 2 },
      problem: undefined,
    });
  });

  it("reads valid values, including 1 and the largest accepted", () => {
    expect(fromObject({ hopLimit: 1, pruneAfterDays: 1 })).toEqual({
      config: { hopLimit: 1, pruneAfterDays: 1 },
      problem: undefined,
    });
    expect(fromObject({ hopLimit: 1000, pruneAfterDays: 36_500 }).config).toEqual({
      hopLimit: 1000,
      pruneAfterDays: 36_500,
    });
  });

  // Issue 9 §3: an unknown key (a typo such as "hoplimit") was ignored without a word.
  it("ignores an unknown key, keeping the values it knows, with a problem naming the key", () => {
    expect(fromObject({ hopLimit: 3, hoplimit: 8 })).toEqual({
      config: { hopLimit: 3, pruneAfterDays: 30 },
      problem: `${path}: unknown key "hoplimit" is ignored (the keys are hopLimit and pruneAfterDays).`,
    });
  });

  it("names at most 5 unknown keys, counts the rest, and shows a forged key's controls as spaces", () => {
    const keys = Object.fromEntries(["a", "b", "c", "d", "e", "f", "g"].map((k) => [k, 1]));
    expect(fromObject(keys).problem).toBe(
      `${path}: unknown keys "a", "b", "c", "d", "e" and 2 more are ignored (the keys are hopLimit and pruneAfterDays).`,
    );
    expect(fromObject({ "x\n[mailbox] y": 1 }).problem).toContain('unknown key "x [mailbox] y" is ignored');
  });

  // "An unreadable or invalid file, or an invalid value, also means the default (5 hops, 30 days), with one warning"
  it("uses the defaults with a problem naming the file when the text is not JSON", () => {
    const reading = fromText("{ hopLimit: 5 ");
    expect(reading.config).toEqual(defaultConfig);
    expect(reading.problem).toContain(path);
    expect(reading.problem).toContain("not valid JSON");
  });

  it("uses the defaults with a problem when the JSON is not an object", () => {
    for (const text of ["[]", "null", "5", '"hopLimit"', "true"]) {
      const reading = fromText(text);
      expect(reading.config, text).toEqual(defaultConfig);
      expect(reading.problem, text).toContain("must hold a JSON object");
    }
  });

  it("uses the default for each invalid value, with a problem naming the key", () => {
    const invalid: unknown[] = [0, -1, 2.5, "5", null, true, [5], { n: 5 }, 1001];
    for (const value of invalid) {
      const reading = fromObject({ hopLimit: value, pruneAfterDays: 12 });
      expect(reading.config, JSON.stringify(value)).toEqual({ hopLimit: 5, pruneAfterDays: 12 });
      expect(reading.problem, JSON.stringify(value)).toContain("hopLimit must be a positive integer");
    }
    for (const value of [0, -30, 0.5, "30", 36_501]) {
      const reading = fromObject({ hopLimit: 7, pruneAfterDays: value });
      expect(reading.config, JSON.stringify(value)).toEqual({ hopLimit: 7, pruneAfterDays: 30 });
      expect(reading.problem, JSON.stringify(value)).toContain("pruneAfterDays must be a positive integer");
    }
  });

  it("gives one problem text covering both keys when both are invalid", () => {
    const reading = fromObject({ hopLimit: 0, pruneAfterDays: -1 });
    expect(reading.config).toEqual(defaultConfig);
    expect(typeof reading.problem).toBe("string");
    expect(reading.problem).toContain("hopLimit");
    expect(reading.problem).toContain("pruneAfterDays");
    expect(reading.problem?.startsWith(`${path}:`)).toBe(true);
  });

  it("uses the defaults with a problem when the file is unreadable", () => {
    const reading = readConfig({ kind: "unreadable", reason: "EACCES" }, path);
    expect(reading.config).toEqual(defaultConfig);
    expect(reading.problem).toContain(path);
    expect(reading.problem).toContain("EACCES");
  });

  it("uses the defaults with a problem when the file is larger than 64 KiB in UTF-8 bytes", () => {
    const padded = (filler: string) => JSON.stringify({ hopLimit: 3, note: filler });
    expect(fromText(padded("a".repeat(65 * 1024))).problem).toContain("too large");
    // Fewer than 64 Ki characters, but more than 64 KiB: each € is 3 bytes.
    const wide = fromText(padded("€".repeat(22_000)));
    expect(wide.config).toEqual(defaultConfig);
    expect(wide.problem).toContain("too large");
    // Under the bound the file is read; its filler key is only named as unknown.
    const read = fromText(padded("é".repeat(30_000)));
    expect(read.config).toEqual({ hopLimit: 3, pruneAfterDays: 30 });
    expect(read.problem).toBe(`${path}: unknown key "note" is ignored (the keys are hopLimit and pruneAfterDays).`);
  });
});
