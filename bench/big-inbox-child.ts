// One drain of a big inbox, alone in a fresh process (bench/big-inbox-bench.ts bundles and spawns
// it): the process holds nothing but the drain, so its peak RSS is the drain's. Prints one JSON line.
//   node big-inbox-child.mjs ours  <root> <address> <count>   a real engine (watcher on, production poll)
//   node big-inbox-child.mjs floor <box> <count>              readdir + rename + read + JSON.parse
import { readdirSync, readFileSync, renameSync } from "node:fs";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { Address } from "../src/domain/mail/address.js";
import type { MailboxEngine } from "../src/domain/mail/engine/index.js";
import { pollIntervalMs } from "../src/domain/mail/limits.js";
import type { AgentHost } from "../src/ports/mail/agent-host.js";
import { createNodeMailbox } from "../src/wiring/node-mailbox.js";

export interface DrainResult {
  /** Wall time of the drain: start → the last envelope injected (ours), or the whole loop (floor). */
  drainMs: number;
  /** Envelopes injected at least once (claimed, for the floor), and injections past the first. */
  distinct: number;
  duplicates: number;
  /** Entries left in new/ once the drain is over. */
  leftInNew: number;
  /** The longest gap between two runs of a 1 ms libuv timer during the drain (ours only). */
  maxStallMs: number;
  /** process.resourceUsage().maxRSS: before the drain began, and at its end. */
  baselineRssMB: number;
  peakRssMB: number;
  /** Notices the engine raised (a healthy drain raises none); the first few, for the report. */
  notices: number;
  firstNotices: string[];
}

/** How long after the last injection duplicates are still looked for: a few polls and every late hint. */
const settleMs = 4 * pollIntervalMs;
/** A drain that injected nothing for this long is over, finished or not (misses show in
 * `distinct`): many polls, each of which would have claimed what waits. */
const drainIdleMs = 40 * pollIntervalMs;

const rssMB = () => process.resourceUsage().maxRSS / 1024;
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

function floor(box: string, count: number): DrainResult {
  const baselineRssMB = rssMB();
  const t0 = nowMs();
  const names = readdirSync(join(box, "new")).sort();
  for (const name of names) {
    renameSync(join(box, "new", name), join(box, "cur", name));
    JSON.parse(readFileSync(join(box, "cur", name), "utf8"));
  }
  const drainMs = nowMs() - t0;
  return {
    drainMs,
    distinct: names.length,
    duplicates: 0,
    leftInNew: readdirSync(join(box, "new")).length + (count - names.length),
    // One synchronous loop: the whole drain is one stall, by construction.
    maxStallMs: drainMs,
    baselineRssMB,
    peakRssMB: rssMB(),
    notices: 0,
    firstNotices: [],
  };
}

/** Which envelope a mail is: the bench writes `#<index>` at the end of each body's line. */
const indexMark = / #(\d+)$/m;

async function ours(root: string, address: string, count: number): Promise<DrainResult> {
  // One counter per envelope, by its index: 100 KB where a Set of 100,000 ids held 4-5 MB that
  // would count as the engine's.
  const times = new Uint8Array(count);
  let distinct = 0;
  let duplicates = 0;
  let notices = 0;
  const firstNotices: string[] = [];
  let engine: MailboxEngine | undefined;
  let drained: (() => void) | undefined;
  const done = new Promise<void>((resolve) => {
    drained = resolve;
  });
  let t1 = 0;
  let lastInjectMs = 0;
  // Like Pi: the host keeps the mail's id (not its text) and reports it read on a later turn, as
  // message_end does once the message entered the conversation.
  const host: AgentHost = {
    inject(mail) {
      const id = mail.details.mailId;
      lastInjectMs = nowMs();
      const index = Number(indexMark.exec(mail.content)?.[1] ?? Number.NaN);
      if (!(index >= 0 && index < count)) throw new Error(`mail ${id} names no envelope of this bench`);
      if (times[index]! > 0) duplicates++;
      else distinct++;
      times[index] = Math.min(255, times[index]! + 1);
      if (distinct === count && t1 === 0) {
        t1 = nowMs();
        drained?.();
      }
      setImmediate(() => engine?.messageEntered(id));
    },
    notify(text) {
      if (notices++ < 5) firstNotices.push(text.slice(0, 300));
    },
    setStatus() {},
    hasShown: () => false,
  };
  const baselineRssMB = rssMB();
  // A native 1 ms timer: it records the interval between its runs, so its largest value is the
  // longest time the loop ran nothing else (plus the 1 ms period), with no JS per tick to slow the drain.
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  const t0 = nowMs();
  engine = createNodeMailbox({ host, agentDir: join(root, "agent"), root, durable: true, watch: true });
  engine.sessionStarted({ address: address as Address, name: "big-inbox", cwd: root });
  // Every engine timer and immediate is unref'd: this one keeps the process alive meanwhile.
  const watchdog = setInterval(() => {
    if (nowMs() - Math.max(lastInjectMs, t0) > drainIdleMs) drained?.();
  }, pollIntervalMs);
  await done;
  const drainMs = (t1 === 0 ? Math.max(lastInjectMs, t0) : t1) - t0;
  await new Promise((resolve) => setTimeout(resolve, settleMs));
  delay.disable();
  engine.shutdown();
  clearInterval(watchdog);
  return {
    drainMs,
    distinct,
    duplicates,
    leftInNew: readdirSync(join(root, address, "new")).length,
    maxStallMs: delay.max / 1e6,
    baselineRssMB,
    peakRssMB: rssMB(),
    notices,
    firstNotices,
  };
}

async function main(): Promise<void> {
  const [mode, ...args] = process.argv.slice(2);
  const result =
    mode === "floor"
      ? floor(args[0]!, Number(args[1]))
      : mode === "ours"
        ? await ours(args[0]!, args[1]!, Number(args[2]))
        : undefined;
  if (result === undefined) throw new Error(`unknown mode ${String(mode)}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
