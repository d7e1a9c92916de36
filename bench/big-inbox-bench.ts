// A giant inbox: `count` envelopes waiting when a session starts, drained by a real engine (watcher
// on, production poll) in a fresh child process, beside the scan floor on an inbox of the same size,
// in the same round, taking turns going first.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { buildSync } from "esbuild";
import type { DrainResult } from "./big-inbox-child.js";
import { envelopeText, freshRoot } from "./fs-bench.js";
import { median, round } from "./stats.js";

export interface BigInboxFigures {
  envelopes: number;
  rounds: number;
  /** Every envelope injected once, none twice, new/ empty after, in every round. */
  exactlyOnce: boolean;
  duplicates: number;
  misses: number;
  /** The worst round's longest event-loop stall during our drain (goal ≤ 50 ms). */
  maxStallMs: number;
  /** The worst round's peak RSS of the process that drained (goal ≤ 150 MB), and of a process
   * that only started and loaded the engine (what Node itself costs). */
  peakRssMB: number;
  baselineRssMB: number;
  /** Medians over the rounds: start → the last envelope injected, per envelope; the floor's loop per envelope. */
  oursUsPerEnvelope: number;
  floorUsPerEnvelope: number;
  oursMs: number;
  floorMs: number;
  floorPeakRssMB: number;
  /** Notices raised during the drains (a healthy drain raises none). */
  notices: number;
  /** Each round as measured (ms, MB), and the 1-minute load average at the end: on a shared
   * machine a stall can be another process's, so the load says how quiet the machine was. */
  perRound: { oursMs: number; floorMs: number; maxStallMs: number; peakRssMB: number }[];
  loadAverage: number;
}

const recipient = "019ad0e0-0000-7000-8000-0000000000bb";

/** The checkout: `npm run bench` runs bundled under node_modules/.cache, not from bench/. */
function repoRoot(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "bench", "run.ts")) && existsSync(join(dir, "package.json"))) return dir;
  }
  throw new Error(`no checkout above ${import.meta.dirname}`);
}

/** The child, bundled as the bench and the extension are: one file of our code and Node built-ins. */
function buildChild(): string {
  const repo = repoRoot();
  const outfile = join(repo, "node_modules", ".cache", "switchboard-bench", "big-inbox-child.mjs");
  buildSync({
    entryPoints: [join(repo, "bench", "big-inbox-child.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    packages: "external",
    outfile,
    logLevel: "warning",
  });
  return outfile;
}

function makeBox(box: string): void {
  for (const sub of ["tmp", "new", "cur", "sent"]) mkdirSync(join(box, sub), { recursive: true, mode: 0o700 });
}

/** Both inboxes get the same envelopes (same names, same bytes), written in turn: one file each in
 * new/, as a sender's rename leaves it (written in place: how they got there is not measured). */
function fill(boxes: readonly string[], count: number): void {
  for (let i = 0; i < count; i++) {
    const { name, text } = envelopeText(i, recipient);
    for (const box of boxes) writeFileSync(join(box, "new", name), text, { mode: 0o600, flag: "wx" });
  }
  // Written back before either drain starts, so neither meets the other's writeback.
  spawnSync("sync");
}

function runChild(child: string, args: readonly string[]): Promise<DrainResult> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [child, ...args], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk: string) => {
      out += chunk;
    });
    proc.on("error", reject);
    proc.on("close", (code) => {
      if (code !== 0) reject(new Error(`big-inbox child ${args[0]} exited with ${code}`));
      else resolve(JSON.parse(out.trim().split("\n").pop()!) as DrainResult);
    });
  });
}

/** `rounds` rounds, each on a fresh folder: fill both inboxes, then ours and the floor drain, each in
 * its own process, the one going first alternating round by round. */
export async function benchBigInbox(count: number, rounds: number): Promise<BigInboxFigures> {
  const child = buildChild();
  const ours: DrainResult[] = [];
  const floor: DrainResult[] = [];
  for (let r = 0; r < rounds; r++) {
    const root = freshRoot("big-inbox");
    const mailRoot = join(root, "mail");
    const floorBox = join(root, "floor");
    makeBox(join(mailRoot, recipient));
    makeBox(floorBox);
    fill([floorBox, join(mailRoot, recipient)], count);
    const runFloor = async () => floor.push(await runChild(child, ["floor", floorBox, String(count)]));
    const runOurs = async () => ours.push(await runChild(child, ["ours", mailRoot, recipient, String(count)]));
    if (r % 2 === 0) {
      await runFloor();
      await runOurs();
    } else {
      await runOurs();
      await runFloor();
    }
  }
  for (const notice of ours.flatMap((o) => o.firstNotices)) console.error(`big inbox notice: ${notice}`);
  const misses = ours.reduce((sum, o) => sum + (count - o.distinct), 0);
  const duplicates = ours.reduce((sum, o) => sum + o.duplicates, 0);
  const oursMs = median(ours.map((o) => o.drainMs));
  const floorMs = median(floor.map((f) => f.drainMs));
  return {
    envelopes: count,
    rounds,
    exactlyOnce: misses === 0 && duplicates === 0 && ours.every((o) => o.leftInNew === 0),
    duplicates,
    misses,
    maxStallMs: Math.max(...ours.map((o) => o.maxStallMs)),
    peakRssMB: Math.max(...ours.map((o) => o.peakRssMB)),
    baselineRssMB: Math.max(...ours.map((o) => o.baselineRssMB)),
    oursUsPerEnvelope: (oursMs * 1000) / count,
    floorUsPerEnvelope: (floorMs * 1000) / count,
    oursMs,
    floorMs,
    floorPeakRssMB: Math.max(...floor.map((f) => f.peakRssMB)),
    notices: ours.reduce((sum, o) => sum + o.notices, 0),
    perRound: ours.map((o, r) => ({
      oursMs: round(o.drainMs, 1),
      floorMs: round(floor[r]!.drainMs, 1),
      maxStallMs: round(o.maxStallMs, 1),
      peakRssMB: round(o.peakRssMB, 1),
    })),
    loadAverage: round(loadavg()[0]!, 2),
  };
}
