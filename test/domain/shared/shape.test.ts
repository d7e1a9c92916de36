import { describe, expect, it } from "vitest";
import { either, integer, isNull, list, oneOf, record, text } from "../../../src/domain/shared/shape.js";

describe("shape checks", () => {
  it("text: type, length bounds and pattern, each named with its path", () => {
    const id = text({ minLength: 1, maxLength: 3, pattern: /^[a-z]+$/ });
    expect(id("abc", "/id")).toBeUndefined();
    expect(id(3, "/id")).toBe("/id must be a string");
    expect(id("", "/id")).toBe("/id must be at least 1 characters");
    expect(id("abcd", "/id")).toBe("/id must be at most 3 characters");
    expect(id("A", "/id")).toBe("/id must match ^[a-z]+$");
  });

  it("integer: whole numbers at or above the minimum only", () => {
    const hops = integer(0);
    expect(hops(0, "/hops")).toBeUndefined();
    for (const bad of [-1, 1.5, "1", Number.NaN, Number.POSITIVE_INFINITY, null]) {
      expect(hops(bad, "/hops")).toBe("/hops must be an integer of at least 0");
    }
  });

  it("oneOf, either and null", () => {
    expect(oneOf(["idle", "busy"])("busy", "/state")).toBeUndefined();
    expect(oneOf(["idle", "busy"])("gone", "/state")).toBe('/state must be one of "idle", "busy"');
    const name = either(text(), isNull);
    expect(name(null, "/name")).toBeUndefined();
    expect(name("x", "/name")).toBeUndefined();
    expect(name(1, "/name")).toBe("/name must be a string, or /name must be null");
  });

  it("list: an array of items within its bound, naming the first bad item", () => {
    const ids = list(text({ minLength: 1 }), 2);
    expect(ids([], "/r")).toBeUndefined();
    expect(ids(["a", "b"], "/r")).toBeUndefined();
    expect(ids("a", "/r")).toBe("/r must be an array");
    expect(ids(["a", "b", "c"], "/r")).toBe("/r must have at most 2 items");
    expect(ids(["a", ""], "/r")).toBe("/r/1 must be at least 1 characters");
  });

  it("record: an object with every required field fitting, optional ones absent or fitting, others ignored", () => {
    const shape = record({ a: text(), b: integer(1) }, ["b"]);
    expect(shape({ a: "x" }, "")).toBeUndefined();
    expect(shape({ a: "x", b: 2, extra: [] }, "")).toBeUndefined();
    expect(shape({ b: 2 }, "")).toBe("/a is required");
    expect(shape({ a: "x", b: 0 }, "")).toBe("/b must be an integer of at least 1");
    expect(shape({ a: "x", b: undefined }, "")).toBe("/b must be an integer of at least 1");
    for (const bad of [null, [], "x", 1]) expect(shape(bad, "")).toBe("/ must be an object");
  });
});
