// Commands in flight to one Pi process, matched to their responses by id, each with a deadline.
import type { RpcCommand, RpcResponse } from "./rpc-records.js";

export interface RequestTable {
  /** Writes the command with a fresh id; resolves with the response carrying that id. */
  request(command: RpcCommand, timeoutMs: number): Promise<RpcResponse>;
  /** True when the response answered a request in flight (and was consumed). */
  answer(response: RpcResponse): boolean;
  /** Rejects every current and later request with `why(what)`. */
  end(why: (what: string) => string): void;
}

interface Pending {
  resolve: (response: RpcResponse) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export function createRequestTable(write: (line: string) => void, describe: (message: string) => string): RequestTable {
  const pending = new Map<string, Pending>();
  let count = 0;
  let ended: ((what: string) => string) | undefined;

  return {
    request(command, timeoutMs) {
      count += 1;
      const id = `req-${count}`;
      const what = `the response to ${command.type} (${id})`;
      if (ended !== undefined) return Promise.reject(new Error(ended(what)));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(describe(`no ${what} within ${timeoutMs} ms`)));
        }, timeoutMs);
        pending.set(id, { resolve, reject, timer });
        write(`${JSON.stringify({ ...command, id })}\n`);
      });
    },
    answer(response) {
      const request = response.id === undefined ? undefined : pending.get(response.id);
      if (response.id === undefined || request === undefined) return false;
      pending.delete(response.id);
      clearTimeout(request.timer);
      request.resolve(response);
      return true;
    },
    end(why) {
      ended = why;
      for (const [id, request] of pending) {
        clearTimeout(request.timer);
        request.reject(new Error(why(`the response to request ${id}`)));
      }
      pending.clear();
    },
  };
}
