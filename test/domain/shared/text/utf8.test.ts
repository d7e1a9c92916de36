import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cutUtf8, decodeUtf8, encodeUtf8, utf8Bytes } from "../../../../src/domain/shared/text/utf8.js";

const encoder = new TextEncoder();
/** Any UTF-16 code unit, lone surrogates included: what a JSON string can hold. */
const anyUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)) });
/** Well-formed text over the whole code-point range. */
const wellFormed = fc.string({ unit: "binary" });

describe("utf8Bytes", () => {
  it("counts 1, 2, 3 and 4 bytes per character by code point", () => {
    expect(utf8Bytes("")).toBe(0);
    expect(utf8Bytes("a")).toBe(1);
    expect(utf8Bytes("é")).toBe(2);
    expect(utf8Bytes("€")).toBe(3);
    expect(utf8Bytes("😀")).toBe(4);
    expect(utf8Bytes("aé€😀")).toBe(10);
  });

  it("counts a lone surrogate as the 3 bytes of the U+FFFD it is encoded as", () => {
    expect(utf8Bytes("\ud800")).toBe(3);
    expect(utf8Bytes("\udc00")).toBe(3);
    expect(utf8Bytes("\ud800a")).toBe(4);
    expect(utf8Bytes("\udc00\ud800")).toBe(6);
  });

  it("matches TextEncoder for any string, lone surrogates included (property)", () => {
    fc.assert(
      fc.property(fc.oneof(anyUnits, wellFormed), (text) => {
        expect(utf8Bytes(text)).toBe(encoder.encode(text).length);
      }),
    );
  });
});

describe("cutUtf8", () => {
  it("returns text that fits unchanged and not cut, up to exactly the limit", () => {
    expect(cutUtf8("hello", 5)).toEqual({ text: "hello", cut: false });
    expect(cutUtf8("é€", 5)).toEqual({ text: "é€", cut: false });
    expect(cutUtf8("", 0)).toEqual({ text: "", cut: false });
  });

  it("cuts one byte over the limit", () => {
    expect(cutUtf8("hello!", 5)).toEqual({ text: "hello", cut: true });
  });

  it("never splits a multi-byte character", () => {
    expect(cutUtf8("aé", 2)).toEqual({ text: "a", cut: true });
    expect(cutUtf8("a€", 3)).toEqual({ text: "a", cut: true });
    expect(cutUtf8("a€", 2)).toEqual({ text: "a", cut: true });
  });

  it("never splits a surrogate pair (a 4-byte character)", () => {
    expect(cutUtf8("a😀", 4)).toEqual({ text: "a", cut: true });
    expect(cutUtf8("a😀", 2)).toEqual({ text: "a", cut: true });
    expect(cutUtf8("a😀b", 5)).toEqual({ text: "a😀", cut: true });
  });

  it("cuts to at most the limit, as a prefix, ending on a character boundary, as long as it fits (property)", () => {
    fc.assert(
      fc.property(wellFormed, fc.nat({ max: 64 }), (text, bytesMax) => {
        const { text: out, cut } = cutUtf8(text, bytesMax);
        expect(utf8Bytes(out)).toBeLessThanOrEqual(bytesMax);
        expect(text.startsWith(out)).toBe(true);
        expect(cut).toBe(utf8Bytes(text) > bytesMax);
        const rest = [...text.slice(out.length)];
        // No character was split: the rest starts on a code point, and the next one would not fit.
        expect(rest.join("")).toBe(text.slice(out.length));
        if (cut) expect(utf8Bytes(out + rest[0])).toBeGreaterThan(bytesMax);
      }),
    );
  });

  it("returns a prefix within the limit even when the text holds lone surrogates (property)", () => {
    fc.assert(
      fc.property(anyUnits, fc.nat({ max: 64 }), (text, bytesMax) => {
        const { text: out, cut } = cutUtf8(text, bytesMax);
        expect(utf8Bytes(out)).toBeLessThanOrEqual(bytesMax);
        expect(text.startsWith(out)).toBe(true);
        expect(cut).toBe(utf8Bytes(text) > bytesMax);
      }),
    );
  });

  it("cuts a body of 3-byte characters at 32 KiB to the largest whole number of characters", () => {
    const { text, cut } = cutUtf8("€".repeat(11_000), 32 * 1024);
    expect(cut).toBe(true);
    expect(text).toBe("€".repeat(10_922));
  });
});

describe("encodeUtf8 and decodeUtf8", () => {
  it("round-trip well-formed text (property)", () => {
    fc.assert(
      fc.property(wellFormed, (text) => {
        const bytes = encodeUtf8(text);
        expect(bytes.length).toBe(utf8Bytes(text));
        expect(decodeUtf8(bytes)).toBe(text);
      }),
    );
  });

  it("decodes invalid bytes to U+FFFD instead of throwing", () => {
    expect(decodeUtf8(new Uint8Array([0x61, 0xff, 0x62]))).toBe("a\ufffdb");
  });
});
