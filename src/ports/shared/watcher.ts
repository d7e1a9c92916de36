export interface WatchHandle {
  close(): void;
}

/** A hint that a folder changed, naming the entry when the watcher knows it. Hints may be dropped,
 * repeated or late: a poll does the work. */
export interface Watcher {
  watch(dir: string, onHint: (name: string | undefined) => void): WatchHandle;
}
