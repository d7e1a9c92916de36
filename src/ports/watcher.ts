export interface WatchHandle {
  close(): void;
}

/** A hint that a folder changed. Hints may be dropped, repeated or late: a poll does the work. */
export interface Watcher {
  watch(dir: string, onHint: () => void): WatchHandle;
}
