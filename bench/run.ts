// `npm run bench`: every figure of ours beside its raw floor, measured in the same run, printed as
// a ratio and written to bench/results.json.

import { existsSync, writeFileSync } from "node:fs";
import { cpus, release, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { runSeed } from "../test/sim/run-seed.js";
import { type BigInboxFigures, benchBigInbox } from "./big-inbox-bench.js";
import { benchLatency, benchList, benchScan, benchSend, removeRoots } from "./fs-bench.js";
import { benchRoundTrip, benchStartup } from "./pi-bench.js";
import { benchSentLookup } from "./sent-bench.js";
import { nowUs, round } from "./stats.js";

const quick = process.argv.includes("--quick");
/** `--only bigInbox`: that figure alone, printed and not written (results.json holds whole runs). */
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;
const goals = {
  send: 2,
  deliveryP50: 2,
  scan: 2,
  startupAdded: 0.05,
  bigInbox: 2,
  deliveryClaimP50: 1.25,
  deliveryClaimP99: 2,
  resolve: 2,
  bigInboxMaxStallMs: 50,
  bigInboxPeakRssMB: 150,
};

async function benchSimulator(seeds: number): Promise<{ messagesPerSecond: number; seeds: number }> {
  let messages = 0;
  const t0 = nowUs();
  for (let seed = 1; seed <= seeds; seed++) messages += (await runSeed(seed)).published.length;
  return { messagesPerSecond: messages / ((nowUs() - t0) / 1e6), seeds };
}

function line(name: string, ours: string, floor: string, ratio: number | undefined, goal?: number): string {
  const r = ratio === undefined ? "" : `${round(ratio)}×`;
  const verdict =
    goal === undefined || ratio === undefined
      ? ""
      : ratio <= goal
        ? `  (goal ≤ ${goal}: met)`
        : `  (goal ≤ ${goal}: MISSED)`;
  return `${name.padEnd(30)} ${ours.padStart(14)} ${floor.padStart(14)} ${r.padStart(8)}${verdict}`;
}

/** The checkout: `npm run bench` runs this file bundled under node_modules/.cache, not from bench/. */
function repoRoot(): string {
  for (let dir = import.meta.dirname; dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "bench", "run.ts")) && existsSync(join(dir, "package.json"))) return dir;
  }
  throw new Error(`no checkout above ${import.meta.dirname}`);
}

const bigInboxSize = () => benchBigInbox(quick ? 10_000 : 100_000, quick ? 1 : 3);

/** A bound, not a ratio: the value beside its goal. */
function limitLine(name: string, value: number, unit: string, goal: number): string {
  const verdict = value <= goal ? "met" : "MISSED";
  return `${name.padEnd(30)} ${`${round(value, 1)} ${unit}`.padStart(14)} ${"".padStart(14)} ${"".padStart(8)}  (goal ≤ ${goal} ${unit}: ${verdict})`;
}

function printBigInbox(b: BigInboxFigures): void {
  const perEnvelope = (v: number) => `${round(v, 1)} µs`;
  const ratio = b.oursUsPerEnvelope / b.floorUsPerEnvelope;
  console.log(
    line(
      `big inbox ${b.envelopes}, per env.`,
      perEnvelope(b.oursUsPerEnvelope),
      perEnvelope(b.floorUsPerEnvelope),
      ratio,
      goals.bigInbox,
    ),
  );
  console.log(limitLine("big inbox: longest stall", b.maxStallMs, "ms", goals.bigInboxMaxStallMs));
  console.log(limitLine("big inbox: peak RSS", b.peakRssMB, "MB", goals.bigInboxPeakRssMB));
  const once = b.exactlyOnce ? "yes" : `NO: ${b.misses} missed, ${b.duplicates} twice`;
  console.log(`${"big inbox: exactly once".padEnd(30)} ${once.padStart(14)}`);
}

async function runOnly(name: string): Promise<void> {
  if (name !== "bigInbox") throw new Error(`--only knows bigInbox, not ${name}`);
  const bigInbox = await bigInboxSize();
  removeRoots();
  printBigInbox(bigInbox);
  console.log(JSON.stringify({ bigInbox, ratio: round(bigInbox.oursUsPerEnvelope / bigInbox.floorUsPerEnvelope, 3) }));
}

async function main(): Promise<void> {
  if (only !== undefined) return runOnly(only);
  const send = await benchSend(quick ? 2 : 10, quick ? 50 : 200);
  const latency = await benchLatency(quick ? 100 : 1000, quick ? 20 : 100);
  const scan = await benchScan(quick ? 1000 : 10_000, quick ? 1 : 3);
  const sentLookup = await benchSentLookup(quick ? 5 : 20);
  const list = await benchList(200, quick ? 20 : 200);
  const sim = await benchSimulator(quick ? 10 : 50);
  const startup = await benchStartup(quick ? 3 : 30);
  const roundTrip = await benchRoundTrip(quick ? 5 : 20);
  // Last: its 100,000-file inboxes are deleted only after every other figure is taken.
  const bigInbox = await bigInboxSize();
  removeRoots();
  const ratios = {
    send: send.oursUs / send.floorUs,
    deliveryP50: latency.oursP50Us / latency.floorP50Us,
    scan: scan.oursMs / scan.floorMs,
    startupAdded: startup.addedMs / startup.withoutMs,
    bigInbox: bigInbox.oursUsPerEnvelope / bigInbox.floorUsPerEnvelope,
    // The delivery goal restated (issue 9): against a bare claim, the floor of any claim by rename.
    deliveryClaimP50: latency.oursP50Us / latency.claimFloorP50Us,
    deliveryClaimP99: latency.oursP99Us / latency.claimFloorP99Us,
    resolve: list.oursUs / list.floorUs,
  };
  const us = (v: number) => `${round(v, 1)} µs`;
  const ms = (v: number) => `${round(v, 1)} ms`;
  console.log(`${"figure".padEnd(30)} ${"ours".padStart(14)} ${"floor".padStart(14)} ${"ratio".padStart(8)}`);
  console.log(line("send (fsync)", us(send.oursUs), us(send.floorUs), ratios.send, goals.send));
  console.log(
    line("send (no fsync)", us(send.oursNoSyncUs), us(send.floorNoSyncUs), send.oursNoSyncUs / send.floorNoSyncUs),
  );
  console.log(
    line(
      "delivery p50 (watcher)",
      us(latency.oursP50Us),
      us(latency.floorP50Us),
      ratios.deliveryP50,
      goals.deliveryP50,
    ),
  );
  console.log(
    line(
      "delivery p50 vs a bare claim",
      us(latency.oursP50Us),
      us(latency.claimFloorP50Us),
      ratios.deliveryClaimP50,
      goals.deliveryClaimP50,
    ),
  );
  console.log(
    line(
      "delivery p99 vs a bare claim",
      us(latency.oursP99Us),
      us(latency.claimFloorP99Us),
      ratios.deliveryClaimP99,
      goals.deliveryClaimP99,
    ),
  );
  console.log(
    line(
      "delivery p99 (watcher)",
      us(latency.oursP99Us),
      us(latency.floorP99Us),
      latency.oursP99Us / latency.floorP99Us,
    ),
  );
  console.log(line("delivery p50 (poll only)", us(latency.pollOnlyP50Us), "", undefined));
  console.log(line("delivery p99 (poll only)", us(latency.pollOnlyP99Us), "", undefined));
  console.log(line(`scan ${scan.envelopes} envelopes`, ms(scan.oursMs), ms(scan.floorMs), ratios.scan, goals.scan));
  console.log(
    line(
      `reply quoting ${sentLookup.ids} of ${sentLookup.copies}`,
      ms(sentLookup.oursMs),
      ms(sentLookup.floorMs),
      sentLookup.oursMs / sentLookup.floorMs,
    ),
  );
  console.log(
    line(`resolve among ${list.records} records`, us(list.oursUs), us(list.floorUs), ratios.resolve, goals.resolve),
  );
  console.log(line("simulator", `${Math.round(sim.messagesPerSecond)} msg/s`, "", undefined));
  console.log(
    line("Pi start-up added", ms(startup.addedMs), ms(startup.withoutMs), ratios.startupAdded, goals.startupAdded),
  );
  console.log(
    line(
      "Pi start-up, empty extension",
      ms(startup.emptyAddedMs),
      ms(startup.withoutMs),
      startup.emptyAddedMs / startup.withoutMs,
    ),
  );
  console.log(line("request → reply (real Pi)", ms(roundTrip.p50Ms), "", undefined));
  printBigInbox(bigInbox);
  const results = {
    date: new Date().toISOString(),
    quick,
    machine: {
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? "unknown",
      memoryGiB: round(totalmem() / 2 ** 30, 1),
      kernel: release(),
    },
    node: process.version,
    figures: { send, latency, scan, sentLookup, list, simulator: sim, startup, roundTrip, bigInbox },
    ratios: Object.fromEntries(Object.entries(ratios).map(([k, v]) => [k, round(v, 3)])),
    goals,
  };
  writeFileSync(join(repoRoot(), "bench", "results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("wrote bench/results.json");
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
