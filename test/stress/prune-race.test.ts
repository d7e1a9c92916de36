// `/mailbox prune` racing real sender processes that mail a closed session: a send that reported
// its mail delivered is never deleted. The prune moves a candidate folder to a tombstone, checks it
// there and puts it back when mail reached it; a send that finds no folder fails and says so.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers, spawnWorker } from "./harness/children.js";
import { createFsWorld, startFsSession } from "./harness/fs-session.js";
import { boxNames, idOfName, newAddress } from "./harness/mail.js";

const senders = 4;
const sendsEach = 50;
/** Bounds the prune loop: the senders finish long before. */
const prunesMax = 200_000;

let bundle: WorkerBundle | undefined;
let scratch: string;

beforeAll(async () => {
  bundle = await bundleWorkers(["sender"]);
  scratch = mkdtempSync(join(tmpdir(), "stress-prune-race-"));
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

describe("prune racing sends to a closed session", () => {
  it(`loses none of ${senders} × ${sendsEach} sends that reported delivery, while a live session prunes in a loop`, async () => {
    const root = join(scratch, "mail");
    const world = createFsWorld(root);
    const pruner = startFsSession(world, newAddress());
    world.tick();
    const closed = newAddress();
    // The closed session's folder, empty: a candidate for every prune.
    createFsMailStore({ fs: nodeFs, root, uid: currentUid() }).openBox(closed)._unsafeUnwrap();
    const workers = Array.from({ length: senders }, () =>
      spawnWorker(bundle!.scripts.sender, {
        ROOT: root,
        FROM: newAddress(),
        TO: closed,
        COUNT: String(sendsEach),
        DURABLE: "1",
        WAIT_GO: "1",
        ON_FAIL: "continue",
      }),
    );
    for (const worker of workers) await worker.waitFor("ready", (lines) => lines.includes("ready"), 30_000);
    for (const worker of workers) worker.send("go");
    let prunes = 0;
    let removed = 0;
    while (!workers.every((w) => w.hasClosed()) && prunes < prunesMax) {
      const pruned = pruner.engine.prune();
      prunes++;
      if (pruned.isOk()) removed += pruned.value;
      // Let the senders' output in, and the senders run, between two prunes.
      if (prunes % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    for (const worker of workers) expect((await worker.closed).code, worker.stderr()).toBe(0);
    const reported = workers.flatMap((w) => w.lines.filter((l) => l.startsWith("sent ")).map((l) => l.slice(5)));
    const failed = workers.flatMap((w) => w.lines.filter((l) => l.startsWith("failed ")));
    const present = new Set(boxNames(root, closed, "new").map(idOfName));
    const lost = reported.filter((id) => !present.has(id));
    expect(reported.length + failed.length).toBe(senders * sendsEach);
    // How often the race was met varies run to run (a send that found no folder, a folder removed);
    // what may never vary is that nothing a sender was told is delivered is gone.
    const met = `${prunes} prunes, ${removed} folders removed, ${failed.length} sends that found no folder`;
    expect(lost, `${lost.length} of ${reported.length} reported sends lost (${met})`).toEqual([]);
    // Nothing is left half-pruned.
    expect(boxNames(root, closed, "new").length).toBe(reported.length);
  });
});
