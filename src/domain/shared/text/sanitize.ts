// Fields that any process of the user can write (names, cwds, ids, statuses, paths) end up in
// the label the model reads. None of them may start a line of its own or reorder the text.

// C0 (tab included), DEL, C1, U+2028/U+2029 (the spec's set), and beyond it: bidi embeddings,
// overrides and isolates, LRM/RLM/ALM, zero-width and other invisible format characters, BOM.
const unsafe =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: variation selectors are matched on purpose, one by one.
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]|\p{Cf}/gu;

/** Replaces every control, separator, bidi and invisible format character with a space. */
export function sanitizeField(value: string, charsMax: number): string {
  const clean = value.replace(unsafe, " ");
  if (clean.length <= charsMax) return clean;
  // Cut on a code point: half a surrogate pair left at the end is not text.
  const last = clean.charCodeAt(charsMax - 1);
  const end = last >= 0xd800 && last <= 0xdbff ? charsMax - 1 : charsMax;
  return `${clean.slice(0, end)}…`;
}

/** The same for a text of several lines (a peer's answer shown on a terminal): line feeds and tabs
 * stay, every other character `sanitizeField` replaces becomes a space; nothing is cut. */
export function sanitizeLines(value: string): string {
  return value.replace(unsafe, (c) => (c === "\n" || c === "\t" ? c : " "));
}

/** True when the text holds a character `sanitizeField` would replace. */
export function hasUnsafeChars(value: string): boolean {
  unsafe.lastIndex = 0;
  const found = unsafe.test(value);
  unsafe.lastIndex = 0;
  return found;
}
