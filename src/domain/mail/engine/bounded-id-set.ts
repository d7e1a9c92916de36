/** A set of ids that forgets the oldest once it holds `max`: memory stays bounded in a long session. */
export interface BoundedIdSet {
  has(id: string): boolean;
  add(id: string): void;
  delete(id: string): void;
  readonly size: number;
}

export function createBoundedIdSet(max: number): BoundedIdSet {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add(id) {
      ids.delete(id);
      ids.add(id);
      if (ids.size > max) {
        const oldest = ids.values().next();
        if (oldest.done !== true) ids.delete(oldest.value);
      }
    },
    delete: (id) => void ids.delete(id),
    get size() {
      return ids.size;
    },
  };
}
