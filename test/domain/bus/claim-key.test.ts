import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeClaimName, encodeClaimName, isBusId, isClaimKey } from "../../../src/domain/bus/claim-key.js";
import { claimNameBytesMax } from "../../../src/domain/bus/limits.js";

const owner = "01a232e9-7f64-7000-8000-000000000001";
const joinToken = "4c1d0c51-7f64-4000-8000-00000000000a";

describe("claim names", () => {
  it("percent-encodes every byte outside [A-Za-z0-9._-], `/` as %2F and a leading dot as %2E", () => {
    expect(encodeClaimName({ key: "src/api/routes.ts", owner, joinToken })._unsafeUnwrap()).toBe(
      `src%2Fapi%2Froutes.ts~${owner}~${joinToken}`,
    );
    expect(encodeClaimName({ key: ".github/a b~é", owner, joinToken })._unsafeUnwrap()).toBe(
      `%2Egithub%2Fa%20b%7E%C3%A9~${owner}~${joinToken}`,
    );
  });

  it("decodes a name back to its key, owner and token", () => {
    expect(decodeClaimName(`src%2Fapi~${owner}~${joinToken}`)).toEqual({ key: "src/api", owner, joinToken });
  });

  it("decodes no name but the one canonical spelling of a valid claim", () => {
    for (const name of [
      `src%2fapi~${owner}~${joinToken}`,
      `%73rc~${owner}~${joinToken}`,
      `src/api~${owner}~${joinToken}`,
      `src~${owner}`,
      `src~${owner}~${joinToken}~x`,
      `%2E~${owner}~${joinToken}`,
      `src%2F%2Fapi~${owner}~${joinToken}`,
      `src~bad.owner~${joinToken}`.replace("bad.owner", ".bad"),
      `%C3~${owner}~${joinToken}`,
      `src%2~${owner}~${joinToken}`,
    ]) {
      expect(decodeClaimName(name), name).toBeUndefined();
    }
  });

  it("refuses keys that are not repository-relative posix paths, and ids outside the safe alphabet", () => {
    for (const key of ["", ".", "/abs", "a/", "a//b", "a/./b", "../x", "a/..", "a\0b", "a\uD800b", "\uDC00"]) {
      expect(isClaimKey(key), key).toBe(false);
      expect(encodeClaimName({ key, owner, joinToken })._unsafeUnwrapErr().kind).toBe("bad-key");
    }
    expect(encodeClaimName({ key: "a", owner: "a~b", joinToken })._unsafeUnwrapErr()).toEqual({
      kind: "bad-id",
      field: "owner",
      value: "a~b",
    });
    expect(isBusId(".hidden")).toBe(false);
    expect(isBusId("x".repeat(129))).toBe(false);
  });

  it("refuses a key whose name would pass 255 bytes, naming the size", () => {
    const refused = encodeClaimName({ key: "é".repeat(40), owner, joinToken })._unsafeUnwrapErr();
    expect(refused).toEqual({
      kind: "key-too-long",
      key: "é".repeat(40),
      nameBytes: 240 + 2 + 72,
      nameBytesMax: claimNameBytesMax,
    });
  });

  it("round-trips every valid key whose name fits, and every name stays one safe segment", () => {
    const segment = fc
      .string({ unit: "binary", minLength: 1, maxLength: 12 })
      .map((s) => s.replace(/[\uD800-\uDFFF]/g, "x"))
      .filter((s) => s !== "." && s !== ".." && !s.includes("/") && !s.includes("\0"));
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segments) => {
        const key = segments.join("/");
        const name = encodeClaimName({ key, owner, joinToken });
        if (name.isErr()) return name.error.kind === "key-too-long";
        return (
          name.value.length <= claimNameBytesMax &&
          /^[A-Za-z0-9%_-][A-Za-z0-9%._~-]*$/.test(name.value) &&
          JSON.stringify(decodeClaimName(name.value)) === JSON.stringify({ key, owner, joinToken })
        );
      }),
    );
  });

  it("decodes a name only when it is the one canonical name of what it decodes to, plain ASCII names included", () => {
    const piece = fc.constantFrom(
      "a",
      "Z",
      "9",
      ".",
      "_",
      "-",
      "%2F",
      "%2f",
      "%2E",
      "%41",
      "%",
      "~",
      "/",
      "..",
      "%2F%2F",
    );
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 12 }), (pieces) => {
        const name = `${pieces.join("")}~${owner}~${joinToken}`;
        const claim = decodeClaimName(name);
        if (claim === undefined) return true;
        const again = encodeClaimName(claim);
        return again.isOk() && again.value === name && isClaimKey(claim.key);
      }),
      { numRuns: 2_000 },
    );
  });
});
