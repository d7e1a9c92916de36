// The records a Pi process printed, and bounded waits over them that fail when the process ends.
import type { RpcRecord } from "./rpc-records.js";

export interface WaitOptions {
  /** Index into `events` to search from; 0 (all events so far, then new ones) when absent. */
  since?: number;
  /** Named in the error message; the predicate's source when absent. */
  what?: string;
}

export interface EventLog {
  readonly events: readonly RpcRecord[];
  push(record: RpcRecord): void;
  waitFor(predicate: (record: RpcRecord) => boolean, timeoutMs: number, options?: WaitOptions): Promise<RpcRecord>;
  /** Rejects every current and later wait with `why(what)`. */
  end(why: (what: string) => string): void;
}

interface Waiter {
  predicate: (record: RpcRecord) => boolean;
  resolve: (record: RpcRecord) => void;
  reject: (error: Error) => void;
  what: string;
  timer: NodeJS.Timeout;
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)));

/** `describe` adds the process context (label, last events, stderr) to a timeout message. */
export function createEventLog(describe: (message: string) => string): EventLog {
  const events: RpcRecord[] = [];
  const waiters = new Set<Waiter>();
  let ended: ((what: string) => string) | undefined;

  const settle = (waiter: Waiter, outcome: { record: RpcRecord } | { error: Error }) => {
    waiters.delete(waiter);
    clearTimeout(waiter.timer);
    if ("record" in outcome) waiter.resolve(outcome.record);
    else waiter.reject(outcome.error);
  };

  return {
    events,
    push(record) {
      events.push(record);
      for (const waiter of waiters) {
        try {
          if (waiter.predicate(record)) settle(waiter, { record });
        } catch (error) {
          settle(waiter, { error: asError(error) });
        }
      }
    },
    waitFor(predicate, timeoutMs, options = {}) {
      const what = options.what ?? predicate.toString().replace(/\s+/g, " ").slice(0, 160);
      try {
        for (let i = options.since ?? 0; i < events.length; i++) {
          const record = events[i];
          if (record !== undefined && predicate(record)) return Promise.resolve(record);
        }
      } catch (error) {
        return Promise.reject(asError(error));
      }
      if (ended !== undefined) return Promise.reject(new Error(ended(what)));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          settle(waiter, { error: new Error(describe(`${what} not seen within ${timeoutMs} ms`)) });
        }, timeoutMs);
        const waiter: Waiter = { predicate, resolve, reject, what, timer };
        waiters.add(waiter);
      });
    },
    end(why) {
      ended = why;
      for (const waiter of waiters) settle(waiter, { error: new Error(why(waiter.what)) });
    },
  };
}
