// Byte-bounded text without a platform Buffer: the domain cuts bodies at UTF-8 byte limits.

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

// The UTF-8 size of the character at `i` and how many code units it spans. A lone surrogate
// counts as the 3-byte U+FFFD that TextEncoder writes for it.
function charAt(text: string, i: number): { bytes: number; units: number } {
  const code = text.charCodeAt(i);
  if (code < 0x80) return { bytes: 1, units: 1 };
  if (code < 0x800) return { bytes: 2, units: 1 };
  if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
    const next = text.charCodeAt(i + 1);
    if (next >= 0xdc00 && next <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; ) {
    const c = charAt(text, i);
    bytes += c.bytes;
    i += c.units;
  }
  return bytes;
}

/** Cuts text to at most `bytesMax` UTF-8 bytes without splitting a character. The result is
 * always a prefix of `text` (a lone surrogate is kept as it is, not replaced). */
export function cutUtf8(text: string, bytesMax: number): { text: string; cut: boolean } {
  if (text.length <= bytesMax / 3 || utf8Bytes(text) <= bytesMax) return { text, cut: false };
  let bytes = 0;
  let end = 0;
  while (end < text.length) {
    const c = charAt(text, end);
    if (bytes + c.bytes > bytesMax) break;
    bytes += c.bytes;
    end += c.units;
  }
  return { text: text.slice(0, end), cut: true };
}

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Writes `text` as UTF-8 at the start of `into`: the bytes written, or undefined when it does not fit. */
export function encodeUtf8Into(text: string, into: Uint8Array): number | undefined {
  const { read, written } = encoder.encodeInto(text, into);
  return read === text.length ? written : undefined;
}

/** A size as a person reads it: KiB with at most one decimal, rounded up, so a size over a limit
 * never reads as the limit itself. */
export function kib(bytes: number): string {
  const tenths = Math.ceil((bytes * 10) / 1024);
  return `${tenths % 10 === 0 ? tenths / 10 : (tenths / 10).toFixed(1)} KiB`;
}
