import type { Watcher, WatchHandle } from "../../ports/shared/watcher.js";

/** Hints held while delayed; past this the oldest is dropped, as a real watcher overflows its queue. */
const queuedHintsMax = 100_000;

/** A watcher driven by the test: hints arrive only when it says, and can be dropped or held back. */
export interface ManualWatcher extends Watcher {
  /** A change in `dir` (of the entry `name`, when given): each open watch of it gets a hint, unless
   * dropped, or queued while delayed. Returns how many hints were delivered or queued. */
  notify(dir: string, name?: string): number;
  /** Drops the next `count` hints (one hint is one delivery to one watch), replacing a count still pending. */
  dropNext(count: number): void;
  /** Drops every hint whose folder the predicate accepts; undefined stops dropping. The simulator
   * passes a predicate over its seeded generator to drop a share of hints. */
  setDropFilter(predicate: ((dir: string) => boolean) | undefined): void;
  /** While delayed, hints are queued instead of delivered; `flush` delivers them. */
  setDelayed(delayed: boolean): void;
  /** Delivers queued hints in order, skipping watches closed meanwhile. Returns hints delivered. */
  flush(): number;
  /** Folders with at least one open watch, sorted, each once. */
  watchedDirs(): string[];
  /** Hints queued by delay and not yet flushed. */
  queuedHints(): number;
}

interface Subscription {
  dir: string;
  onHint: (name: string | undefined) => void;
  open: boolean;
}

interface QueuedHint {
  subscription: Subscription;
  name: string | undefined;
}

/** Paths are compared as strings (no node:path here), so only a trailing slash is ignored. */
function normalizeDir(dir: string): string {
  return dir.length > 1 && dir.endsWith("/") ? dir.slice(0, -1) : dir;
}

export function createManualWatcher(): ManualWatcher {
  const subscriptions = new Set<Subscription>();
  let queue: QueuedHint[] = [];
  let dropCount = 0;
  let dropFilter: ((dir: string) => boolean) | undefined;
  let delayed = false;

  const dropped = (dir: string): boolean => {
    if (dropCount > 0) {
      dropCount--;
      return true;
    }
    return dropFilter?.(dir) ?? false;
  };

  return {
    watch(dir: string, onHint: (name: string | undefined) => void): WatchHandle {
      const subscription: Subscription = { dir: normalizeDir(dir), onHint, open: true };
      subscriptions.add(subscription);
      return {
        close(): void {
          subscription.open = false;
          subscriptions.delete(subscription);
        },
      };
    },
    notify(dir: string, name?: string): number {
      const target = normalizeDir(dir);
      let count = 0;
      // A snapshot: watches opened by a callback wait for the next change, as with a real watcher.
      for (const subscription of [...subscriptions]) {
        if (subscription.dir !== target || !subscription.open || dropped(target)) continue;
        count++;
        if (!delayed) subscription.onHint(name);
        else if (queue.push({ subscription, name }) > queuedHintsMax) queue.shift();
      }
      return count;
    },
    dropNext(count: number): void {
      if (!(Number.isInteger(count) && count >= 0)) throw new RangeError(`dropNext needs a count >= 0, got ${count}`);
      dropCount = count;
    },
    setDropFilter(predicate: ((dir: string) => boolean) | undefined): void {
      dropFilter = predicate;
    },
    setDelayed(value: boolean): void {
      delayed = value;
    },
    flush(): number {
      // Hints queued by callbacks during this flush wait for the next one, which bounds the loop.
      const batch = queue;
      queue = [];
      let count = 0;
      for (const { subscription, name } of batch) {
        if (!subscription.open) continue;
        count++;
        subscription.onHint(name);
      }
      return count;
    },
    watchedDirs: () => [...new Set([...subscriptions].map((subscription) => subscription.dir))].sort(),
    queuedHints: () => queue.length,
  };
}
