// Figures with real Pi processes: the start-up time the extension adds, and the round trip of a
// request to an idle session and its automatic reply.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isObject, type RpcRecord } from "../test/e2e/harness/rpc-records.js";
import { createSandbox, e2ePaths, startPi } from "../test/e2e/harness/rpc-session.js";
import { median, nowUs, percentile } from "./stats.js";

const timeoutMs = 60_000;

export interface StartupFigures {
  withoutMs: number;
  withMs: number;
  addedMs: number;
  /** What an extension that does nothing adds, measured the same way: the floor of any extension. */
  emptyAddedMs: number;
  runs: number;
}

const emptyExtension = join(e2ePaths.repoRoot, "bench", "fixtures", "empty-extension");

/** Spawn → first `get_state` response: without extensions, with one that does nothing, and with
 * the package, in `runs` back-to-back rounds. The time added is the median of the rounds'
 * differences: Pi's own start varies by ±100 ms on this machine, more than the budget, and a round
 * sees one moment of the machine. */
export async function benchStartup(runs: number): Promise<StartupFigures> {
  const sandbox = createSandbox();
  const kinds = ["none", "empty", "ours"] as const;
  const samples = { none: [] as number[], empty: [] as number[], ours: [] as number[] };
  try {
    // One warm-up round: the first start fills jiti's and Node's compile caches.
    for (let i = -1; i < runs; i++) {
      // Which goes first rotates, so none always meets the warmer machine.
      for (let k = 0; k < kinds.length; k++) {
        const kind = kinds[(i + 1 + k) % kinds.length]!;
        const t0 = nowUs();
        const session = startPi({
          sandbox,
          sessionId: `019ad0e0-0000-7000-8000-${String(i + 2).padStart(6, "0")}${String(k).padStart(6, "0")}`,
          extensions: kind === "none" ? [] : [kind === "empty" ? emptyExtension : e2ePaths.repoRoot],
        });
        await session.request({ type: "get_state" }, timeoutMs);
        const ms = (nowUs() - t0) / 1000;
        await session.close();
        if (i >= 0) samples[kind].push(ms);
      }
    }
  } finally {
    await sandbox.cleanup();
  }
  const added = (kind: "empty" | "ours") =>
    Math.max(0, median(samples[kind].map((ms, i) => ms - (samples.none[i] ?? ms))));
  return {
    withoutMs: median(samples.none),
    withMs: median(samples.ours),
    addedMs: added("ours"),
    emptyAddedMs: added("empty"),
    runs,
  };
}

export interface RoundTripFigures {
  p50Ms: number;
  p99Ms: number;
  runs: number;
}

function isReplyShown(record: RpcRecord): boolean {
  return record.type === "message_end" && isObject(record.message) && record.message.customType === "session-mail";
}

/** `/mailbox <b> <text>` typed in A → B wakes, answers → the reply is shown in A. */
export async function benchRoundTrip(runs: number): Promise<RoundTripFigures> {
  const sandbox = createSandbox();
  const samples: number[] = [];
  try {
    const a = startPi({
      sandbox,
      sessionId: "019ad0e0-0000-7000-8000-00000000000a",
      name: "a",
      extensions: [e2ePaths.repoRoot],
    });
    const b = startPi({
      sandbox,
      sessionId: "019ad0e0-0000-7000-8000-00000000000b",
      name: "b",
      extensions: [e2ePaths.repoRoot],
    });
    await Promise.all([a.request({ type: "get_state" }, timeoutMs), b.request({ type: "get_state" }, timeoutMs)]);
    for (let i = -2; i < runs; i++) {
      const since = a.mark();
      const t0 = nowUs();
      await a.request({ type: "prompt", message: `/mailbox b round trip ${i}` }, timeoutMs);
      await a.waitFor(isReplyShown, timeoutMs, { since, what: "the automatic reply" });
      if (i >= 0) samples.push((nowUs() - t0) / 1000);
    }
    await a.close();
    await b.close();
    const running = join(sandbox.state, "pi-session-mail", "running");
    if (existsSync(running) && readdirSync(running).length > 0) throw new Error("running records left after shutdown");
  } finally {
    await sandbox.cleanup();
  }
  return { p50Ms: median(samples), p99Ms: percentile(samples, 99), runs };
}
