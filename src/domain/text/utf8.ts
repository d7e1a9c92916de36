// Byte-bounded text without a platform Buffer: the domain cuts bodies at UTF-8 byte limits.

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: false });

export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Cuts text to at most `bytesMax` UTF-8 bytes without splitting a character. */
export function cutUtf8(text: string, bytesMax: number): { text: string; cut: boolean } {
  if (text.length <= bytesMax / 3 || utf8Bytes(text) <= bytesMax) return { text, cut: false };
  const bytes = encoder.encode(text).subarray(0, bytesMax);
  let end = bytes.length;
  // Step back over a partial trailing sequence so no replacement character appears.
  let i = end - 1;
  while (i >= 0 && (bytes[i]! & 0xc0) === 0x80) i--;
  if (i >= 0) {
    const lead = bytes[i]!;
    const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (end - i < need) end = i;
  }
  return { text: decoder.decode(bytes.subarray(0, end)), cut: true };
}

export function decodeUtf8(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}
