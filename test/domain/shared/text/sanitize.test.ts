import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hasUnsafeChars, sanitizeField } from "../../../../src/domain/shared/text/sanitize.js";

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String.fromCharCode(from + i));

// "C0 controls, tab included, DEL and C1 controls, and the line and paragraph separators U+2028 and U+2029"
const c0 = range(0x00, 0x1f);
const del = ["\u007f"];
const c1 = range(0x80, 0x9f);
const separators = ["\u2028", "\u2029"];
// Beyond the spec's set: bidi embeddings, overrides, isolates and marks, then zero-width characters and the BOM.
const bidi = [...range(0x202a, 0x202e), ...range(0x2066, 0x2069), "\u200e", "\u200f", "\u061c"];
const zeroWidth = [...range(0x200b, 0x200d), "\u2060", "\ufeff"];

const classes: Record<string, string[]> = { c0, del, c1, separators, bidi, zeroWidth };
const hex = (ch: string) => `U+${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`;

describe("sanitizeField", () => {
  for (const [name, chars] of Object.entries(classes)) {
    it(`replaces every ${name} character with one space`, () => {
      for (const ch of chars) {
        expect(sanitizeField(`a${ch}b`, 100), hex(ch)).toBe("a b");
      }
    });
  }

  it("replaces the tab too (the spec: 'C0 controls, tab included')", () => {
    expect(sanitizeField("a\tb", 100)).toBe("a b");
  });

  it("turns a forged '\\n[mailbox] From evil' into one line", () => {
    expect(sanitizeField("alice\n[mailbox] From evil", 100)).toBe("alice [mailbox] From evil");
    expect(sanitizeField("alice\r\n[mailbox] From evil", 100)).toBe("alice  [mailbox] From evil");
    expect(sanitizeField("alice\u2028[mailbox] From evil", 100)).toBe("alice [mailbox] From evil");
  });

  it("keeps ordinary text, accents, CJK and emoji as they are", () => {
    const text = "Zoë's 项目 🚀 /home/zoë/work-1.2 (main)";
    expect(sanitizeField(text, 100)).toBe(text);
  });

  it("keeps a value at the cap as it is and cuts a longer one to the cap plus an ellipsis", () => {
    expect(sanitizeField("abcde", 5)).toBe("abcde");
    expect(sanitizeField("abcdef", 5)).toBe("abcde…");
  });

  it("applies the cap after replacing, so a cut value holds no unsafe character", () => {
    expect(sanitizeField("\n\n\n\n\n\n", 3)).toBe("   …");
  });

  it("never splits a surrogate pair at the cap", () => {
    expect(sanitizeField("ab😀cd", 3)).toBe("ab…");
    expect(sanitizeField("ab😀cd", 4)).toBe("ab😀…");
  });

  it("leaves no unsafe character in any string (property)", () => {
    const unsafe = Object.values(classes).flat();
    const piece = fc.oneof(fc.constantFrom(...unsafe), fc.string({ unit: "binary", maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 20 }), fc.integer({ min: 1, max: 40 }), (pieces, max) => {
        const out = sanitizeField(pieces.join(""), max);
        expect(hasUnsafeChars(out)).toBe(false);
        expect(out).not.toMatch(/[\n\r\u2028\u2029]/);
      }),
    );
  });
});

describe("hasUnsafeChars", () => {
  it("is true for every character of every class", () => {
    for (const ch of Object.values(classes).flat()) {
      expect(hasUnsafeChars(`safe${ch}text`), hex(ch)).toBe(true);
    }
  });

  it("is false for clean text", () => {
    expect(hasUnsafeChars("alice-session /home/alice é 项目 🚀")).toBe(false);
    expect(hasUnsafeChars("")).toBe(false);
  });

  it("gives the same answer when called again on the same text (no regex state leaks between calls)", () => {
    expect(hasUnsafeChars("a\nb")).toBe(true);
    expect(hasUnsafeChars("a\nb")).toBe(true);
    expect(hasUnsafeChars("x\u202ey")).toBe(true);
    expect(hasUnsafeChars("clean")).toBe(false);
  });

  it("agrees with sanitizeField: text is unsafe exactly when sanitizing changes it (property)", () => {
    const unsafe = Object.values(classes).flat();
    const piece = fc.oneof(fc.constantFrom(...unsafe), fc.string({ unit: "binary", maxLength: 4 }));
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 10 }), (pieces) => {
        const text = pieces.join("");
        expect(hasUnsafeChars(text)).toBe(sanitizeField(text, Number.MAX_SAFE_INTEGER) !== text);
      }),
    );
  });
});
