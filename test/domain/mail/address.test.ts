import { describe, expect, it } from "vitest";
import { isAddress, isUuid, shortId } from "../../../src/domain/mail/address.js";

const uuid = "0b7c2f4e-3d1a-4c5b-9e8f-1a2b3c4d5e6f";

describe("isAddress", () => {
  it("accepts a session id and other plain names", () => {
    expect(isAddress(uuid)).toBe(true);
    expect(isAddress("session_1")).toBe(true);
    expect(isAddress("a.b-c")).toBe(true);
    expect(isAddress("x")).toBe(true);
  });

  // "An address is safe as one path segment: no `/`, no `..`, no leading dot, bounded."
  it("refuses anything that is not one safe path segment", () => {
    for (const bad of ["", "a/b", "/abs", "..", "../x", "a..b", ".hidden", ".", "a\\b", "a b", "a\nb", "é"]) {
      expect(isAddress(bad), JSON.stringify(bad)).toBe(false);
    }
  });

  it("accepts 128 characters and refuses 129", () => {
    expect(isAddress("a".repeat(128))).toBe(true);
    expect(isAddress("a".repeat(129))).toBe(false);
  });
});

describe("isUuid", () => {
  it("accepts a full UUID in either case", () => {
    expect(isUuid(uuid)).toBe(true);
    expect(isUuid(uuid.toUpperCase())).toBe(true);
  });

  it("refuses a prefix, a longer string and a non-hex id", () => {
    expect(isUuid(uuid.slice(0, 8))).toBe(false);
    expect(isUuid(`${uuid}0`)).toBe(false);
    expect(isUuid(` ${uuid}`)).toBe(false);
    expect(isUuid("zb7c2f4e-3d1a-4c5b-9e8f-1a2b3c4d5e6f")).toBe(false);
  });
});

describe("shortId", () => {
  // "the first 8 characters of its id when it has none"
  it("is the first 8 characters of the id", () => {
    expect(shortId(uuid)).toBe("0b7c2f4e");
    expect(shortId("abc")).toBe("abc");
  });
});
