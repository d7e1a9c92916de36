// The shortest prefix of each session id that no other id starts with: what a person reads (and the
// mailbox lets one type) instead of a 36-character UUID. Pi's ids are UUIDv7, so sessions started
// within a minute share their first 8 characters; the prefix grows past them.

function commonPrefixLength(a: string, b: string): number {
  const end = Math.min(a.length, b.length);
  let i = 0;
  while (i < end && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/**
 * For each id, its shortest prefix of at least `charsMin` characters that no other id starts with
 * and that `taken` (when given) does not refuse. Sorted, an id shares its longest prefix with a
 * neighbour, so this is one sort, not a comparison of all pairs.
 */
export function uniquePrefixes<Id extends string>(
  ids: readonly Id[],
  charsMin: number,
  taken?: (prefix: string, id: Id) => boolean,
): Map<Id, string> {
  const sorted = [...new Set(ids)].sort();
  const prefixes = new Map<Id, string>();
  sorted.forEach((id, i) => {
    const before = i > 0 ? commonPrefixLength(id, sorted[i - 1]!) : 0;
    const after = i + 1 < sorted.length ? commonPrefixLength(id, sorted[i + 1]!) : 0;
    let length = Math.min(id.length, Math.max(charsMin, before + 1, after + 1));
    while (taken !== undefined && length < id.length && taken(id.slice(0, length), id)) length++;
    prefixes.set(id, id.slice(0, length));
  });
  return prefixes;
}
