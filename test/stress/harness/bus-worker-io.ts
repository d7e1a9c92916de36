// What the bus worker scripts share: their environment, one JSON object per stdout line, a session
// wired like production in the worker's own process, and the line types the tests read back.
// Times are `process.hrtime.bigint()` in ns as decimal strings: CLOCK_MONOTONIC on Linux, one clock
// for every process of the machine, so intervals logged by different workers compare.
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import type { BusError } from "../../../src/domain/bus/bus-errors.js";
import type { ClaimConflict } from "../../../src/domain/bus/claim-rules.js";
import type { BusEngine } from "../../../src/domain/bus/engine/index.js";
import { createNodeBus, resolveBusPlace } from "../../../src/wiring/node-bus.js";

/** A worker printed it when it was ready (joined, or started when it joins later). */
export interface ReadyLine {
  ev: "ready";
  id: string;
  label: string;
  pid: number;
}

/** One claim call: `s`/`e` when it was called and when it returned. */
export type ClaimLine = {
  ev: "claim";
  n: number;
  s: string;
  e: string;
  paths: string[];
} & ({ ok: true; keys: string[]; alreadyHeld: string[] } | { ok: false; error: BusError });

/** One release call of the keys a claim returned (or, `of: "accept"`, the keys accept `n` took). */
export interface ReleaseLine {
  ev: "release";
  of?: "accept";
  n: number;
  s: string;
  e: string;
  keys: string[];
  released: string[];
  failed: string | undefined;
}

/** Claim `n`'s keys offered to the peer labelled `to` by a handoff (message `id`). */
export type OfferLine = {
  ev: "offer";
  n: number;
  s: string;
  e: string;
  to: string;
  keys: string[];
} & ({ ok: true; id: string } | { ok: false; error: BusError });

/** The `a`-th accept of this session, of the handoff `id` offering `paths`. */
export type AcceptLine = {
  ev: "accept";
  a: number;
  s: string;
  e: string;
  id: string;
  paths: string[];
} & (
  | {
      ok: true;
      taken: string[];
      released: string[];
      /** Moved, then let go to a third session's claim that met the move mid-way. */
      lost: ClaimConflict[];
    }
  | { ok: false; error: BusError }
);

export interface SentLine {
  ev: "sent";
  seq: number;
  id: string;
}

export interface DoneLine {
  ev: "done";
  count: number;
}

export type WorkerLine = ReadyLine | ClaimLine | ReleaseLine | OfferLine | AcceptLine | SentLine | DoneLine;

export function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`bus worker: ${name} is not set`);
  return value;
}

export function print(line: WorkerLine | Record<string, unknown>): void {
  writeSync(1, `${JSON.stringify(line)}\n`);
}

export const now = (): string => process.hrtime.bigint().toString();

/** The session of env ID, in env CWD's repository, under env AGENT_DIR: started, not joined. */
export function startWorkerSession(): { id: string; engine: BusEngine } {
  const place = resolveBusPlace(required("CWD"));
  if (place.isErr()) throw new Error(`bus worker: no bus place: ${JSON.stringify(place.error)}`);
  const engine = createNodeBus({
    host: { raiseTurn: () => {}, warn: (warning) => print({ ev: "warning", warning }) },
    agentDir: required("AGENT_DIR"),
    place: place.value,
  });
  const id = required("ID");
  engine.sessionStarted({ id, name: undefined }, "startup");
  return { id, engine };
}

/** Ends the process once stdin closes (the test runner is gone: an orphan must not linger), and
 * calls `onLine` for each line read. */
export function listen(onLine: (line: string) => void = () => {}): void {
  const input = createInterface({ input: process.stdin });
  input.on("close", () => process.exit(0));
  input.on("line", onLine);
}

/** Resolves at the first `go` line on stdin (all workers loaded, so their work really overlaps). */
export function waitForGo(): Promise<void> {
  return new Promise((resolve) => {
    let started = false;
    listen((line) => {
      if (line !== "go" || started) return;
      started = true;
      resolve();
    });
  });
}

/** Says ready (with the label the join settled on), then runs `work`: at once, or with WAIT_GO=1
 * at the first `go` line, so that every worker is loaded before any starts. */
export async function readyThenRun(id: string, label: string, work: () => Promise<void>): Promise<void> {
  const ready = () => print({ ev: "ready", id, label, pid: process.pid });
  if (process.env.WAIT_GO === "1") {
    ready();
    await waitForGo();
  } else {
    listen();
    ready();
  }
  await work();
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The lines of a worker's stdout that are JSON objects of the given event. */
export function linesOf<E extends WorkerLine["ev"]>(lines: readonly string[], ev: E): Extract<WorkerLine, { ev: E }>[] {
  const out: Extract<WorkerLine, { ev: E }>[] = [];
  for (const line of lines) {
    if (!line.startsWith("{")) continue;
    const parsed = JSON.parse(line) as WorkerLine;
    if (parsed.ev === ev) out.push(parsed as Extract<WorkerLine, { ev: E }>);
  }
  return out;
}
