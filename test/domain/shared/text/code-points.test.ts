import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { clipCodePoints, codePointCount } from "../../../../src/domain/shared/text/code-points.js";

describe("code points", () => {
  it("counts an astral character once, not as two UTF-16 units", () => {
    expect(codePointCount("a😀b")).toBe(3);
    expect(codePointCount("")).toBe(0);
  });

  it("counts a lone surrogate as one", () => {
    expect(codePointCount("\ud83d")).toBe(1);
  });

  it("clips to the first max code points without splitting a pair", () => {
    expect(clipCodePoints("😀😀😀", 2)).toEqual({ text: "😀😀", clipped: true });
    expect(clipCodePoints("abc", 3)).toEqual({ text: "abc", clipped: false });
  });

  it("agrees with the string iterator for any text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 50 }), fc.nat(60), (text, max) => {
        const points = [...text];
        const clip = clipCodePoints(text, max);
        return (
          codePointCount(text) === points.length &&
          clip.text === points.slice(0, max).join("") &&
          clip.clipped === points.length > max
        );
      }),
    );
  });
});
