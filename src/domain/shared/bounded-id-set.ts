/** A set of ids that forgets the oldest once it holds `max`: memory stays bounded in a long session. */
export interface BoundedIdSet {
  has(id: string): boolean;
  add(id: string): void;
  delete(id: string): void;
  readonly size: number;
}

/** Forgets the oldest entries of `ids` once it holds more than `max`, an eighth of `max` at a time:
 * a Set's or Map's iterator walks every slot deleted before the oldest live one, so forgetting one
 * per add cost about 4 µs an add at 10,000 ids. */
export function forgetOldest<K>(ids: Set<K> | Map<K, unknown>, max: number): void {
  if (ids.size <= max) return;
  let left = Math.max(1, Math.floor(max / 8));
  for (const oldest of ids.keys()) {
    ids.delete(oldest);
    if (--left === 0) return;
  }
}

export function createBoundedIdSet(max: number): BoundedIdSet {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add(id) {
      ids.delete(id);
      ids.add(id);
      forgetOldest(ids, max);
    },
    delete: (id) => void ids.delete(id),
    get size() {
      return ids.size;
    },
  };
}
