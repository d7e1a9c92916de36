// The demo's transcript: one line per step with the time since the start and who acted, the checks
// that make `npm run demo` exit non-zero when a step did not happen, and what the RPC records say.
import { contentText, isObject, type RpcRecord } from "../test/e2e/harness/rpc-records.js";

const started = Date.now();
export const failures: string[] = [];

export function say(who: string, text: string): void {
  const seconds = ((Date.now() - started) / 1000).toFixed(2).padStart(6);
  const lines = text.split("\n");
  console.log(`${seconds}s  ${who.padEnd(7)} ${lines[0]}`);
  for (const line of lines.slice(1)) console.log(`${" ".repeat(16)}${line}`);
}

export function check(ok: boolean, what: string): void {
  if (!ok) failures.push(what);
  say(ok ? "ok" : "FAILED", what);
}

export function lastAssistantText(records: readonly RpcRecord[]): string {
  for (let i = records.length - 1; i >= 0; i--) {
    const record = records[i]!;
    if (record.type === "message_end" && isObject(record.message) && record.message.role === "assistant") {
      const text = contentText(record.message.content);
      if (text !== "") return text;
    }
  }
  return "";
}
