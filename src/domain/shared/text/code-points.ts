// Text counted in Unicode code points (a lone surrogate counts as one): the bus's send cap, body
// clips and read budget, and every clip of a shown field that must not cut a character in half.

export function codePointCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/** The first `max` code points of `text`, and whether anything was cut. */
export function clipCodePoints(text: string, max: number): { text: string; clipped: boolean } {
  if (text.length <= max) return { text, clipped: false };
  let end = 0;
  for (let kept = 0; kept < max && end < text.length; kept++) {
    const unit = text.charCodeAt(end);
    const pair = unit >= 0xd800 && unit <= 0xdbff && end + 1 < text.length;
    end += pair && text.charCodeAt(end + 1) >= 0xdc00 && text.charCodeAt(end + 1) <= 0xdfff ? 2 : 1;
  }
  return { text: text.slice(0, end), clipped: end < text.length };
}
