// src/pi/shared/display-width.ts, pinned here with the board that first needed it.
import { visibleWidth } from "@earendil-works/pi-tui";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  cutToWidth,
  displayWidth,
  fitToWidth,
  stripUnsafe,
  wrapToWidth,
} from "../../../src/pi/shared/display-width.js";

// Text the way peers and the board produce it: ASCII, CJK, emoji (with and without joiners and
// selectors), combining marks, controls, bidi characters, escape sequences, lone surrogates.
const piece = fc.oneof(
  fc.string({ unit: "grapheme-ascii", maxLength: 6 }),
  fc.constantFrom("中", "文", "ラ", "한", "Ｆ", "　", "𠀋", "🚀", "🎉", "👍🏽", "🇯🇵", "❤️", "👨‍👩‍👧", "1️⃣"),
  fc.constantFrom("e\u0301", "\u0301", "\u20e3", "\u093f", "क्ष", "\u102b", "\u0e33", "\u115f", "\u1160"),
  fc.constantFrom(
    "\x1b[31m",
    "\x1b[0m",
    "\x1b]8;;http://x\x07",
    "\x1b]8;;\x1b\\",
    "\x1bP+q\x1b\\",
    "\x1b",
    "\x1b[",
    "\x9b2J",
  ),
  fc.constantFrom(
    "\t",
    "\n",
    "\r",
    "\0",
    "\x7f",
    "\u202e",
    "\u2067",
    "\u200b",
    "\u200d",
    "\ufeff",
    "\u2028",
    "\ud800",
    "\udfff",
  ),
  fc.string({ unit: "binary", maxLength: 4 }),
);
const text = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(""));
const width = fc.integer({ min: 0, max: 40 });
const cutMark = /(?:\x1b\[0m)?…$/;

describe("displayWidth", () => {
  it.each([
    ["abc", 3],
    ["中文", 4],
    ["e\u0301", 1],
    ["🚀 go", 5],
    ["\x1b[31mred\x1b[0m", 3],
    ["\u200b\u200d", 0],
  ])("measures %j as %i columns", (sample, columns) => {
    expect(displayWidth(sample)).toBe(columns);
  });

  it("never measures sanitized text narrower than Pi's own measure does", () => {
    fc.assert(
      fc.property(text, (sample) => {
        const clean = stripUnsafe(sample);
        expect(displayWidth(clean)).toBeGreaterThanOrEqual(visibleWidth(clean));
      }),
      { numRuns: 2_000 },
    );
  });
});

describe("displayWidth against Pi, code point by code point", () => {
  it("never measures one code point of planes 0 and 1, or a sample of planes 2 to 16, narrower than Pi does", () => {
    const narrower: string[] = [];
    for (let code = 0; code <= 0x10ffff; code += code < 0x20000 ? 1 : 0x3f) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const clean = stripUnsafe(String.fromCodePoint(code));
      if (displayWidth(clean) < visibleWidth(clean)) narrower.push(code.toString(16));
    }
    expect(narrower).toEqual([]);
  });
});

describe("cutToWidth", () => {
  it("never leaves a line wider than the width, by its own measure or by Pi's", () => {
    fc.assert(
      fc.property(text, width, (sample, columns) => {
        const cut = cutToWidth(stripUnsafe(sample), columns);
        expect(displayWidth(cut)).toBeLessThanOrEqual(columns);
        expect(visibleWidth(cut)).toBeLessThanOrEqual(columns);
      }),
      { numRuns: 2_000 },
    );
  });

  it("keeps a line that fits untouched, and cuts one that does not to a prefix ending in …", () => {
    fc.assert(
      fc.property(text, width, (sample, columns) => {
        const cut = cutToWidth(sample, columns);
        if (displayWidth(sample) <= columns) expect(cut).toBe(sample);
        else if (columns > 0) {
          expect(cut).toMatch(cutMark);
          expect(sample.startsWith(cut.replace(cutMark, ""))).toBe(true);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it("never splits a surrogate pair or a wide character", () => {
    fc.assert(
      fc.property(text, width, (sample, columns) => {
        const kept = cutToWidth(sample, columns).replace(cutMark, "");
        const next = sample.slice(kept.length);
        // The cut falls between code points: no high surrogate left without its low half.
        expect(/[\ud800-\udbff]$/.test(kept) && /^[\udc00-\udfff]/.test(next)).toBe(false);
        expect(displayWidth(kept) + displayWidth(next)).toBe(displayWidth(sample));
      }),
      { numRuns: 2_000 },
    );
  });

  it("drops a wide character that would straddle the edge rather than show half of it", () => {
    expect(cutToWidth("ab中文", 4)).toBe("ab…");
    expect(cutToWidth("ab中文", 5)).toBe("ab中…");
    expect(cutToWidth("👍🏽👍🏽", 3)).toBe("👍…");
  });

  it("ends a cut styled line with a reset before the …, and an unstyled one without", () => {
    expect(cutToWidth("\x1b[31mredder\x1b[0m", 4)).toBe("\x1b[31mred\x1b[0m…");
    expect(cutToWidth("redder", 4)).toBe("red…");
    expect(cutToWidth("redder", 0)).toBe("");
  });
});

describe("fitToWidth", () => {
  it("pads or cuts every line to exactly the width", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 40 }), (sample, columns) => {
        expect(displayWidth(fitToWidth(stripUnsafe(sample), columns))).toBe(columns);
      }),
    );
  });
});

describe("stripUnsafe", () => {
  it("removes escape sequences, controls, bidi and invisible format characters, and lone surrogates", () => {
    fc.assert(
      fc.property(text, (sample) => {
        const clean = stripUnsafe(sample);
        expect(clean).not.toMatch(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u);
      }),
      { numRuns: 2_000 },
    );
  });

  it("turns tabs and line breaks into spaces and drops whole escape sequences", () => {
    expect(stripUnsafe("a\tb\r\nc\nd")).toBe("a b c d");
    expect(stripUnsafe("\x1b[1;31mred\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07")).toBe("red link");
    expect(stripUnsafe("abc\u202edef\u2066g\u2069")).toBe("abcdefg");
  });
});

describe("wrapToWidth", () => {
  it("wraps to lines no wider than the width and loses nothing but the spaces it broke at", () => {
    const words = fc.array(fc.oneof(fc.constantFrom(" ", "  "), piece.map(stripUnsafe)), { maxLength: 20 });
    fc.assert(
      fc.property(words, fc.integer({ min: 2, max: 30 }), (parts, columns) => {
        const sample = parts.join("");
        const lines = wrapToWidth(sample, columns);
        for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(columns);
        expect(lines.join("").replace(/ /g, "")).toBe(sample.replace(/ /g, ""));
      }),
      { numRuns: 1_000 },
    );
  });

  it("breaks at the last space that fits, and inside a word longer than the width", () => {
    expect(wrapToWidth("one two three", 7)).toEqual(["one two", "three"]);
    expect(wrapToWidth("abcdefghij", 4)).toEqual(["abcd", "efgh", "ij"]);
    expect(wrapToWidth("中文中文中", 4)).toEqual(["中文", "中文", "中"]);
  });
});
