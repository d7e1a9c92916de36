// Figures with real Pi processes: the package's own start-up work, measured inside Pi, and the round
// trip of a request to an idle session and its automatic reply, beside a bare relay's in the same run.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { isObject, type RpcRecord } from "../test/e2e/harness/rpc-records.js";
import { createSandbox, e2ePaths, type PiSession, startPi } from "../test/e2e/harness/rpc-session.js";
import { relayReplyType } from "./fixtures/relay-floor.js";
import { startMarkPrefix } from "./fixtures/start-marks/marks.js";
import { median, nowUs, percentile } from "./stats.js";

const timeoutMs = 60_000;
const fixtures = join(e2ePaths.repoRoot, "bench", "fixtures");
const emptyExtension = join(fixtures, "empty-extension");
const firstMark = join(fixtures, "start-marks", "first.ts");
const lastMark = join(fixtures, "start-marks", "last.ts");
const relayFloor = join(fixtures, "relay-floor.ts");

export interface StartupFigures {
  /** Medians over the starts, in ms. Import and factory are Pi's own `PI_TIMING=1` figures (whole
   * milliseconds), summed over the package's two extensions. */
  importMs: number;
  factoryMs: number;
  /** The package's `session_start` handlers, bracketed by two marking extensions. */
  handlersMs: number;
  /** The work those handlers defer to the next turn (the mailbox's recovery), bracketed the same way. */
  deferredMs: number;
  /** The median of each start's sum of the four: the figure with the goal. */
  ownMs: number;
  /** An extension that does nothing, loaded just before the package: its import and factory. */
  emptyMs: number;
  /** Spawn → first RPC response with all of it loaded: Pi's whole start, for scale. */
  piStartMs: number;
  runs: number;
}

interface StartSample {
  importMs: number;
  factoryMs: number;
  handlersMs: number;
  deferredMs: number;
  emptyMs: number;
  piStartMs: number;
}

const timingLine = /^\s+(.+) (module import|factory): (\d+)ms$/;

/** The sums of Pi's import and factory timings for the extensions whose path passes `mine`. */
function piTimings(stderr: string, mine: (path: string) => boolean): { importMs: number; factoryMs: number } {
  let importMs = 0;
  let factoryMs = 0;
  let seen = 0;
  for (const line of stderr.split("\n")) {
    const match = timingLine.exec(line);
    if (match === null || !mine(match[1]!)) continue;
    seen++;
    if (match[2] === "module import") importMs += Number(match[3]);
    else factoryMs += Number(match[3]);
  }
  if (seen === 0) throw new Error(`no PI_TIMING lines for the extension in:\n${stderr}`);
  return { importMs, factoryMs };
}

async function marksOf(session: PiSession): Promise<{ handlersMs: number; deferredMs: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const line = session.stderr.split("\n").find((l) => l.startsWith(startMarkPrefix));
    if (line !== undefined) return JSON.parse(line.slice(startMarkPrefix.length)) as never;
    if (Date.now() > deadline) throw new Error(`no start marks on stderr:\n${session.stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const isPackage = (path: string) => path.includes("/dist/extension/session-");

/**
 * The package's own start work, measured inside each of `runs` Pi starts (after one warm-up start
 * that fills jiti's and Node's compile caches): Pi's `PI_TIMING=1` import and factory of both
 * extensions, plus their `session_start` handlers and the work they defer to the next turn, each
 * bracketed by a marking extension loaded right before and one right after the package. The
 * difference of two whole Pi starts once stood for this; it swung by tens of ms run to run.
 */
export async function benchStartup(runs: number): Promise<StartupFigures> {
  const sandbox = createSandbox();
  const samples: StartSample[] = [];
  try {
    for (let i = -1; i < runs; i++) {
      const t0 = nowUs();
      const session = startPi({
        sandbox,
        sessionId: `019ad0e0-0000-7000-8000-${String(i + 2).padStart(12, "0")}`,
        extensions: [firstMark, emptyExtension, e2ePaths.repoRoot, lastMark],
        env: { PI_TIMING: "1" },
      });
      await session.request({ type: "get_state" }, timeoutMs);
      const piStartMs = (nowUs() - t0) / 1000;
      const marks = await marksOf(session);
      await session.close();
      const ours = piTimings(session.stderr, isPackage);
      const empty = piTimings(session.stderr, (path) => path.includes("empty-extension"));
      if (i >= 0) samples.push({ ...ours, ...marks, emptyMs: empty.importMs + empty.factoryMs, piStartMs });
    }
  } finally {
    await sandbox.cleanup();
  }
  const of = (pick: (s: StartSample) => number) => median(samples.map(pick));
  return {
    importMs: of((s) => s.importMs),
    factoryMs: of((s) => s.factoryMs),
    handlersMs: of((s) => s.handlersMs),
    deferredMs: of((s) => s.deferredMs),
    ownMs: of((s) => s.importMs + s.factoryMs + s.handlersMs + s.deferredMs),
    emptyMs: of((s) => s.emptyMs),
    piStartMs: of((s) => s.piStartMs),
    runs,
  };
}

export interface RoundTripFigures {
  p50Ms: number;
  p99Ms: number;
  /** The bare relay (bench/fixtures/relay-floor.ts), interleaved with ours request by request. */
  floorP50Ms: number;
  floorP99Ms: number;
  runs: number;
}

const shown =
  (customType: string) =>
  (record: RpcRecord): boolean =>
    record.type === "message_end" && isObject(record.message) && record.message.customType === customType;

async function timeOne(from: PiSession, command: string, replied: (record: RpcRecord) => boolean): Promise<number> {
  const since = from.mark();
  const t0 = nowUs();
  await from.request({ type: "prompt", message: command }, timeoutMs);
  await from.waitFor(replied, timeoutMs, { since, what: "the automatic reply" });
  return (nowUs() - t0) / 1000;
}

/** `/mailbox <b> <text>` typed in A → B wakes, answers → the reply is shown in A; and the same
 * with the bare relay between two other Pi processes, each going first every other request. */
export async function benchRoundTrip(runs: number): Promise<RoundTripFigures> {
  const sandbox = createSandbox();
  const ours: number[] = [];
  const floor: number[] = [];
  try {
    const session = (id: string, name: string, extensions: string[]) =>
      startPi({ sandbox, sessionId: `019ad0e0-0000-7000-8000-0000000000${id}`, name, extensions });
    const a = session("0a", "a", [e2ePaths.repoRoot]);
    const b = session("0b", "b", [e2ePaths.repoRoot]);
    const fa = session("fa", "fa", [relayFloor]);
    const fb = session("fb", "fb", [relayFloor]);
    await Promise.all([a, b, fa, fb].map((s) => s.request({ type: "get_state" }, timeoutMs)));
    for (let i = -2; i < runs; i++) {
      const turns = [
        async () => {
          const ms = await timeOne(a, `/mailbox b round trip ${i}`, shown("session-mail"));
          if (i >= 0) ours.push(ms);
        },
        async () => {
          const ms = await timeOne(fa, `/relay ${fb.sessionId} round trip ${i}`, shown(relayReplyType));
          if (i >= 0) floor.push(ms);
        },
      ];
      const first = ((i % 2) + 2) % 2;
      await turns[first]!();
      await turns[1 - first]!();
    }
    await Promise.all([a, b, fa, fb].map((s) => s.close()));
    const running = join(sandbox.state, "pi-session-mail", "running");
    if (existsSync(running) && readdirSync(running).length > 0) throw new Error("running records left after shutdown");
  } finally {
    await sandbox.cleanup();
  }
  return {
    p50Ms: median(ours),
    p99Ms: percentile(ours, 99),
    floorP50Ms: median(floor),
    floorP99Ms: percentile(floor, 99),
    runs,
  };
}
