// One run of the hostile-input property: a fresh world, a live session (virtual clock, or the
// production wiring itself), a batch written while it runs, and every check after it. Each run
// cleans up after itself, engine and folders, whatever happens.
import * as fs from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import type { Envelope } from "../../src/domain/mail/envelope.js";
import { pollIntervalMs } from "../../src/domain/mail/limits.js";
import { createNodeMailbox } from "../../src/wiring/node-mailbox.js";
import { expectBatch, place, prepare, type RunPlan } from "./hostile-batch.js";
import { peerAddress } from "./hostile-peers.js";
import {
  createRecordingHost,
  createWorld,
  expectSealed,
  neverMarker,
  type RecordingHost,
  removeWorld,
  startVirtualSession,
  type VirtualSession,
  type World,
} from "./hostile-world.js";

/** One scan of a batch must end well within this, FIFOs included; the watchdog unblocks a hung one later. */
export const scanBoundMs = 3_000;
export const running = peerAddress("running");

export function replay(): { seed?: number; path?: string } {
  const { HOSTILE_SEED: seed, HOSTILE_PATH: path } = process.env;
  if (seed === undefined) return {};
  return path === undefined ? { seed: Number(seed) } : { seed: Number(seed), path };
}

/** A running peer publishes like the real writer: tmp/, then rename into new/. */
export function deliverFromPeer(w: World, id: string): void {
  const store = createFsMailStore({ fs: nodeFs, root: w.root, uid: currentUid() });
  const ts = new Date().toISOString();
  const envelope: Envelope = {
    id,
    from: running,
    to: w.self,
    kind: "message",
    hops: 0,
    in_reply_to: [],
    status: "",
    ts,
    body: "Still there?",
  };
  store.deliver(envelope, Date.now(), { durable: false })._unsafeUnwrap();
}

export function newTotals(): Totals {
  return { runs: 0, hostileInbox: 0, hostileRecords: 0, valid: 0, slowestScanMs: 0 };
}

export function injectedIds(host: RecordingHost): string[] {
  return host.injected.map((i) => i.mail.details.mailId);
}

export type Trigger = "scan" | "hint" | "poll";

export function trigger(s: VirtualSession, w: World, how: Trigger): number {
  const started = performance.now();
  if (how === "scan") s.engine.scan();
  if (how === "hint") expect(s.watcher.notify(w.newDir), "the session watches its new/").toBe(1);
  if (how === "poll") s.clock.advance(pollIntervalMs);
  return performance.now() - started;
}

export interface Totals {
  runs: number;
  hostileInbox: number;
  hostileRecords: number;
  valid: number;
  slowestScanMs: number;
}

function timed(totals: Totals, ms: number): number {
  totals.slowestScanMs = Math.max(totals.slowestScanMs, ms);
  return ms;
}

export function runOnce(plan: RunPlan, how: Trigger, split: boolean, totals: Totals): void {
  const w = createWorld();
  let session: VirtualSession | undefined;
  try {
    const { batch, trap, inside, hostileRecords } = prepare(w, plan);
    session = startVirtualSession(w);
    // Written while the session runs: with `split`, half of it, a scan, then the rest.
    const cut = split ? Math.floor(batch.entries.length / 2) : batch.entries.length;
    const described = place(w.newDir, batch.entries.slice(0, cut));
    expect(timed(totals, trigger(session, w, how)), "the first scan ends within its bound").toBeLessThan(scanBoundMs);
    for (const [name, what] of place(w.newDir, batch.entries.slice(cut))) described.set(name, what);
    expect(timed(totals, trigger(session, w, how)), "the scan ends within its bound").toBeLessThan(scanBoundMs);
    session.clock.advance(pollIntervalMs);
    expectBatch(w, session.host, batch, described, []);

    // The engine still runs: the poll delivers mail written after the batch, once.
    deliverFromPeer(w, "later-1");
    session.clock.advance(pollIntervalMs);
    expect(injectedIds(session.host).filter((id) => id === "later-1")).toHaveLength(1);
    expectBatch(w, session.host, batch, described, ["later-1"]);
    const listed = session.engine.list();
    expect(listed.map((s) => s.address)).toEqual(expect.arrayContaining([w.self, running, peerAddress("hostile")]));
    expect(JSON.stringify(listed).includes(neverMarker), "a record never to be read was listed").toBe(false);

    session.engine.shutdown();
    expectSealed(trap);
    expectSealed(inside);
    totals.runs++;
    totals.hostileInbox += batch.entries.filter((e) => e.outcome !== "deliver").length;
    totals.valid += batch.entries.filter((e) => e.outcome === "deliver").length;
    totals.hostileRecords += hostileRecords;
  } finally {
    session?.engine.shutdown();
    removeWorld(w);
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until(done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done() && Date.now() < deadline) await sleep(10);
}

/** The production wiring itself (createNodeMailbox: system clock, fs.watch, 250 ms poll); entries are
 * built beside the root and renamed into new/ a few at a time, so watcher-driven scans interleave. */
export async function runLive(plan: RunPlan, totals: Totals): Promise<void> {
  const w = createWorld();
  const host = createRecordingHost();
  const engine = createNodeMailbox({ host, agentDir: w.agentDir, root: w.root });
  try {
    const { batch, trap, inside, hostileRecords } = prepare(w, plan);
    engine.sessionStarted({ address: w.self, name: "victim", cwd: w.base });
    await tick();
    const described = place(w.staging, batch.entries);
    const started = Date.now();
    for (const [n, e] of batch.entries.entries()) {
      fs.renameSync(join(w.staging, e.name), join(w.newDir, e.name));
      if (n % 4 === 3) await tick();
    }
    const valid = batch.entries.filter((e) => e.outcome === "deliver").length;
    await until(() => host.injected.length >= valid, 10_000);
    expect(timed(totals, Date.now() - started), "every valid envelope arrived within the bound").toBeLessThan(
      scanBoundMs,
    );
    await sleep(3 * pollIntervalMs);
    expectBatch(w, host, batch, described, []);
    deliverFromPeer(w, "later-live");
    await until(() => injectedIds(host).includes("later-live"), 5_000);
    expectBatch(w, host, batch, described, ["later-live"]);
    engine.shutdown();
    expectSealed(trap);
    expectSealed(inside);
    totals.runs++;
    totals.hostileInbox += batch.entries.filter((e) => e.outcome !== "deliver").length;
    totals.hostileRecords += hostileRecords;
  } finally {
    engine.shutdown();
    removeWorld(w);
  }
}
