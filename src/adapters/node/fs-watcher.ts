import { type FSWatcher, watch } from "node:fs";
import type { Watcher, WatchHandle } from "../../ports/shared/watcher.js";

interface FsWatcherOptions {
  /** Told about a throw from a hint callback; the throw itself goes no further. */
  onCallbackError?: (error: unknown) => void;
}

function reportQuietly(report: ((error: unknown) => void) | undefined, error: unknown): void {
  try {
    report?.(error);
  } catch {
    // A broken reporter must not turn a swallowed error into a crash.
  }
}

/**
 * fs.watch as a hint only: the poll does the work, so every watcher failure (ENOENT, EMFILE,
 * the 'error' event) is swallowed and the handle simply stays quiet.
 */
export function createFsWatcher(options: FsWatcherOptions = {}): Watcher {
  return {
    watch(dir: string, onHint: (name: string | undefined) => void): WatchHandle {
      let closed = false;
      let watcher: FSWatcher | undefined;
      const close = (): void => {
        if (closed) return;
        closed = true;
        try {
          watcher?.close();
        } catch {
          // Already closed by an error: nothing left to release.
        }
      };
      try {
        // persistent: false unrefs the watcher, so it never keeps a process alive.
        watcher = watch(dir, { persistent: false }, (_event, name) => {
          if (closed) return;
          try {
            onHint(typeof name === "string" && name !== "" ? name : undefined);
          } catch (error) {
            // A throw escaping a watcher callback would kill the whole Pi process.
            reportQuietly(options.onCallbackError, error);
          }
        });
        // Without a listener an 'error' event is thrown; after one the watcher is useless, so release it.
        watcher.on("error", close);
      } catch {
        watcher = undefined;
      }
      return { close };
    },
  };
}
