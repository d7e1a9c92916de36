import { describe, expect, it } from "vitest";
import type { BusMessage } from "../../../src/domain/bus/bus-files.js";
import {
  decodeBusMessage,
  encodeBusMessage,
  messageFileName,
  messageIdOfFileName,
} from "../../../src/domain/bus/bus-message.js";
import { messageTextCharsMax, pathsPerCallMax } from "../../../src/domain/bus/limits.js";
import { codePointCount } from "../../../src/domain/shared/text/code-points.js";

const message: BusMessage = {
  id: "m-1",
  from: "01a232e9-7f64-7000-8000-000000000001",
  fromLabel: "billing-core",
  to: "01a232e9-809c-7000-8000-000000000002",
  kind: "handoff",
  text: "take src/api ✓",
  paths: ["src/api", "README.md"],
  sentAt: "2026-01-01T00:00:00.000Z",
  hops: 0,
};

describe("bus messages", () => {
  it("reads back exactly what it writes", () => {
    expect(decodeBusMessage(encodeBusMessage(message))._unsafeUnwrap()).toEqual(message);
  });

  it("tolerates extra fields and an absent paths list", () => {
    const { paths: _, ...bare } = message;
    expect(decodeBusMessage(JSON.stringify({ ...bare, later: true }))._unsafeUnwrap()).toEqual({ ...bare, paths: [] });
  });

  it("caps the text in code points, not code units: 4,000 emoji fit, one more does not", () => {
    const full = "😀".repeat(messageTextCharsMax);
    expect(codePointCount(full)).toBe(messageTextCharsMax);
    expect(decodeBusMessage(encodeBusMessage({ ...message, text: full })).isOk()).toBe(true);
    expect(() => encodeBusMessage({ ...message, text: `${full}x` })).toThrow(/at most 4000/);
    const over = JSON.stringify({ ...message, text: `${full}x` });
    expect(decodeBusMessage(over)._unsafeUnwrapErr().kind).toBe("wrong-shape");
  });

  it("refuses unknown kinds, a `*` recipient, paths outside the repository and too many paths", () => {
    for (const bad of [
      { ...message, kind: "order" },
      { ...message, to: "*" },
      { ...message, paths: ["/etc/passwd"] },
      { ...message, paths: ["../x"] },
      { ...message, paths: Array.from({ length: pathsPerCallMax + 1 }, (_, i) => `p${i}`) },
      { ...message, text: 5 },
    ]) {
      expect(decodeBusMessage(JSON.stringify(bad))._unsafeUnwrapErr().kind, JSON.stringify(bad).slice(0, 60)).toBe(
        "wrong-shape",
      );
      expect(() => encodeBusMessage(bad as BusMessage)).toThrow();
    }
    expect(decodeBusMessage("nope")._unsafeUnwrapErr()).toEqual({ kind: "not-json" });
    expect(() => encodeBusMessage({ ...message, text: "" })).toThrow(/without text/);
  });

  it("names a file <15-digit ms>-<id>.json and reads the id back, refusing any other name", () => {
    expect(messageFileName(1_760_000_000_123, "m-1")).toBe("001760000000123-m-1.json");
    expect(messageIdOfFileName("001760000000123-m-1.json")).toBe("m-1");
    for (const name of ["1760000000123-m-1.json", "001760000000123-m-1.txt", "001760000000123-.hidden.json", "x"]) {
      expect(messageIdOfFileName(name), name).toBeUndefined();
    }
    expect(() => messageFileName(-1, "m")).toThrow();
    expect(() => messageFileName(1, "a/b")).toThrow();
  });
});
