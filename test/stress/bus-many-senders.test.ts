// Eight real sending processes × 500 numbered messages into one inbox, while its owner — a session
// wired like production in this process, listening — reads with `limit` 7 the whole time. Each
// message is returned exactly once, whole, and each sender's messages come back in the order it
// sent them (arrival order per sender), every number from 1 to 500.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { InboxRead } from "../../src/domain/bus/engine/index.js";
import { type BusRepo, createBusRepo, type InProcessSession, startSession } from "./harness/bus-repo.js";
import { linesOf } from "./harness/bus-worker-io.js";
import { type BusWorkerBundle, bundleBusWorkers, spawnBusWorker } from "./harness/bus-workers.js";
import { killAllWorkers } from "./harness/children.js";

const senders = 8;
const sendsEach = 500;
const total = senders * sendsEach;
const readLimit = 7;

let bundle: BusWorkerBundle | undefined;
let repo: BusRepo | undefined;

beforeAll(async () => {
  bundle = await bundleBusWorkers(["bus-sender"]);
  repo = createBusRepo("stress-bus-senders");
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await repo?.dispose();
});

interface Reading {
  reads: InboxRead[];
  /** Reads that returned at least one message while some sender was still sending. */
  readsDuringSends: number;
}

/** Reads the owner's inbox with `limit` 7 every millisecond until `stop()`, then once more until empty. */
async function readAll(owner: InProcessSession, sending: () => boolean, stop: () => boolean): Promise<Reading> {
  const reading: Reading = { reads: [], readsDuringSends: 0 };
  const readOnce = (): InboxRead => {
    const read = owner.engine.inbox(readLimit);
    if (read.isErr()) throw new Error(`inbox failed: ${JSON.stringify(read.error)}`);
    reading.reads.push(read.value);
    if (read.value.rows.length > 0 && sending()) reading.readsDuringSends++;
    return read.value;
  };
  while (!stop()) {
    readOnce();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // Everything is on disk now: drain what is left, a bounded number of reads.
  for (let left = total; left > 0; left--) if (readOnce().rows.length === 0) break;
  return reading;
}

/** The senders, started together once all are loaded, while the owner reads; then what each sent:
 * its message ids by `<label> <seq>`, and the sender ids by label. */
async function sendWhileReading(
  r: BusRepo,
  owner: InProcessSession,
): Promise<Reading & { sentIds: Map<string, string>; senderIds: Map<string, string> }> {
  const crew = Array.from({ length: senders }, (_, i) =>
    spawnBusWorker(bundle!.scripts["bus-sender"], r, i % 2 === 0 ? r.repo : r.worktree, {
      LABEL: `sender-${i}`,
      TO: owner.id,
      COUNT: String(sendsEach),
      WAIT_GO: "1",
    }),
  );
  await Promise.all(crew.map(({ worker }) => worker.waitFor("ready", (lines) => lines.length > 0, 30_000)));
  for (const { worker } of crew) worker.send("go");
  let done = 0;
  const isDone = (lines: readonly string[]) => lines.some((line) => line.includes('"ev":"done"'));
  const finished = Promise.all(
    crew.map(({ worker }) => worker.waitFor("done", isDone, 120_000).then(() => void done++)),
  );
  let stop = false;
  const reading = readAll(
    owner,
    () => done < senders,
    () => stop,
  );
  try {
    await finished;
  } finally {
    stop = true;
  }
  const read = await reading;
  const exits = await Promise.all(crew.map(({ worker }) => worker.closed));
  expect(exits.map((exit) => exit.code)).toEqual(crew.map(() => 0));
  const sentIds = new Map<string, string>();
  for (const { worker } of crew) {
    const [ready] = linesOf(worker.lines, "ready");
    for (const sent of linesOf(worker.lines, "sent")) sentIds.set(`${ready!.label} ${sent.seq}`, sent.id);
  }
  return { ...read, sentIds, senderIds: new Map(crew.map(({ id }, i) => [`sender-${i}`, id])) };
}

/** Each sender's numbers, in the order the reads returned them. */
function orderBySender(rows: readonly InboxRead["rows"][number][]): Map<string, number[]> {
  const order = new Map<string, number[]>();
  for (const row of rows) {
    const [label, seq] = row.message.text.split(" ");
    order.set(label!, [...(order.get(label!) ?? []), Number(seq)]);
  }
  return order;
}

describe("many senders, one bus inbox", () => {
  it(`${senders} processes × ${sendsEach} messages into one inbox read with limit ${readLimit}: each returned exactly once, in arrival order per sender`, async () => {
    const r = repo!;
    const startedMs = Date.now();
    const owner = startSession(r, r.place(r.repo));
    expect(owner.engine.join({ label: "owner", listen: true }).isOk()).toBe(true);
    try {
      const { reads, readsDuringSends, sentIds, senderIds } = await sendWhileReading(r, owner);
      expect(sentIds.size).toBe(total);
      // Each read: at most 7 rows, nothing unreadable, nothing it could not consume.
      expect(reads.filter((read) => read.rows.length > readLimit)).toEqual([]);
      expect(reads.flatMap((read) => read.unreadable)).toEqual([]);
      expect(reads.filter((read) => read.consumeFailed !== undefined)).toEqual([]);

      // Each message exactly once, whole, under its sender's id and label.
      const rows = reads.flatMap((read) => read.rows);
      const returnedIds = rows.map((row) => row.message.id);
      expect(new Set(returnedIds).size, "no message returned twice").toBe(returnedIds.length);
      expect(new Set(returnedIds)).toEqual(new Set(sentIds.values()));
      const badRows = rows.filter((row) => {
        const [label] = row.message.text.split(" ");
        const { id, fromLabel, from, to, text } = row.message;
        return sentIds.get(text) !== id || fromLabel !== label || from !== senderIds.get(label!) || to !== owner.id;
      });
      expect(badRows).toEqual([]);

      // In arrival order per sender: each sender's numbers come back increasing, and all of them.
      const order = orderBySender(rows);
      const outOfOrder = [...order].flatMap(([label, seqs]) =>
        seqs.flatMap((seq, i) => (i > 0 && seq <= seqs[i - 1]! ? [`${label}: ${seqs[i - 1]} then ${seq}`] : [])),
      );
      expect(outOfOrder).toEqual([]);
      for (const seqs of order.values()) expect(seqs).toEqual(Array.from({ length: sendsEach }, (_, i) => i + 1));

      // The inbox is empty and the last read said so; the reads really ran during the sends.
      expect(reads.at(-1)).toMatchObject({ rows: [], more: 0 });
      expect(readdirSync(join(r.bus, "inbox", owner.id))).toEqual([]);
      expect(readsDuringSends).toBeGreaterThan(10);
      expect(owner.host.warnings).toEqual([]);
      console.info(
        `bus many senders: ${rows.length} messages from ${senders} processes, ${reads.length} reads with limit ${readLimit} ` +
          `(${readsDuringSends} returning mail during the sends), each exactly once and in order per sender; ${Date.now() - startedMs} ms`,
      );
    } finally {
      owner.engine.shutdown("quit");
      await killAllWorkers();
    }
  }, 180_000);
});
