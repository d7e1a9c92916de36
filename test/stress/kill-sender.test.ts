// Senders SIGKILLed at random points, and at each step of a delivery, while this process claims.
// A delivery is published only by its rename into new/, so whatever a kill leaves behind is either
// a whole envelope in new/ (or cur/, once claimed) or a leftover in tmp/, which sweepTmp removes
// once it is older than tmpLeftoverAgeMs.
import { mkdtempSync, statSync, utimesSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import type { Address } from "../../src/domain/mail/address.js";
import { tmpLeftoverAgeMs } from "../../src/domain/mail/limits.js";
import type { MailStore } from "../../src/ports/mail/mail-store.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers, spawnWorker, type Worker } from "./harness/children.js";
import { boxNames, idOfName, newAddress, readBox } from "./harness/mail.js";
import { seededRandom } from "./harness/seeded-random.js";

const randomKills = 200;
const lanes = 4;
/** Sends a worker would make if nobody killed it: far more than any random delay allows. */
const sendsUnbounded = 1_000_000;
const deliveryPoints = ["created", "half-written", "synced", "before-rename", "after-rename"] as const;
type DeliveryPoint = (typeof deliveryPoints)[number];

let bundle: WorkerBundle | undefined;
let scratch: string;
let root: string;
let store: MailStore;
const recipient = newAddress();
const random = seededRandom();
/** Every id a killed sender printed as sent (its delivery had returned). */
const printed = new Set<string>();
/** Texts this process claimed while senders were being killed, by name. */
const claimedIds = new Map<string, string>();
const claimProblems: string[] = [];

beforeAll(async () => {
  bundle = await bundleWorkers(["sender"]);
  scratch = mkdtempSync(join(tmpdir(), "stress-kill-sender-"));
  root = join(scratch, "mail");
  store = createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
  // Sessions create the root at start; a sender never does.
  store.openRoot()._unsafeUnwrap();
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await rm(scratch, { recursive: true, force: true });
});

function startSender(env: Record<string, string>): Worker {
  return spawnWorker(bundle!.scripts.sender, { ROOT: root, FROM: newAddress(), TO: recipient, ...env });
}

function recordPrinted(worker: Worker): string[] {
  const ids = worker.lines.filter((line) => line.startsWith("sent ")).map((line) => line.slice("sent ".length));
  for (const id of ids) printed.add(id);
  return ids;
}

/** Claims every other waiting envelope, as an owner racing the senders would; each claimed text must decode. */
function claimSome(): void {
  const listing = store.listNew(recipient as Address);
  if (listing.isErr()) return; // the inbox does not exist before the first delivery
  listing.value.names.forEach((name, index) => {
    if (index % 2 === 1) return;
    const claimed = store.claim(recipient, name);
    if (claimed.isErr()) claimProblems.push(`${name}: ${claimed.error.kind}`);
    else if (claimed.value.kind !== "claimed") claimProblems.push(`${name}: ${claimed.value.kind}`);
    else {
      // The store decodes what it claims: a torn envelope would have come back "invalid".
      const envelope = claimed.value.envelope;
      if (envelope.id !== idOfName(name)) claimProblems.push(`${name}: torn when claimed`);
      claimedIds.set(name, envelope.id);
    }
  });
}

function tmpLeftovers(): string[] {
  return boxNames(root, recipient, "tmp");
}

/** One sender whose second delivery dies at `point` (its first completed and was printed): what it left. */
async function killAtStep(
  point: DeliveryPoint,
): Promise<{ printed: string[]; addedTmp: string[]; addedNew: string[] }> {
  const before = { tmp: tmpLeftovers(), new: boxNames(root, recipient, "new") };
  const worker = startSender({ COUNT: "3", DURABLE: "1", DIE_AT: `${point}:2` });
  const exit = await worker.closed;
  expect(exit.signal, `${point}: ${worker.stderr()}`).toBe("SIGKILL");
  return {
    printed: recordPrinted(worker),
    addedTmp: tmpLeftovers().filter((name) => !before.tmp.includes(name)),
    addedNew: boxNames(root, recipient, "new").filter((name) => !before.new.includes(name)),
  };
}

describe("senders killed with SIGKILL", () => {
  it("a kill at each step of a delivery leaves an empty, half or whole file in tmp/ only, or a published envelope", async () => {
    for (const point of deliveryPoints) {
      const { printed: ids, addedTmp, addedNew } = await killAtStep(point);
      expect(ids, point).toHaveLength(1);
      if (point === "after-rename") {
        // Published but never acknowledged: delivered mail the sender could not report.
        expect(addedTmp, point).toEqual([]);
        expect(addedNew, point).toHaveLength(2);
        continue;
      }
      expect(addedTmp, point).toHaveLength(1);
      expect(addedNew.map(idOfName), point).toEqual(ids);
      // Both deliveries have bodies of the same length, so the published one measures a whole file.
      const size = statSync(join(root, recipient, "tmp", addedTmp[0]!)).size;
      const whole = statSync(join(root, recipient, "new", addedNew[0]!)).size;
      if (point === "created") expect(size, point).toBe(0);
      if (point === "half-written") expect(size, point).toBe(Math.floor(whole / 2));
      if (point === "synced" || point === "before-rename") expect(size, point).toBe(whole);
    }
    expect(readBox(root, recipient, "new").problems).toEqual([]);
  });

  it(`${randomKills} kills at random moments never leave a torn file in new/ or cur/, and lose no printed id`, async () => {
    let killed = 0;
    let withSends = 0;
    let failed = false;
    const lane = async (): Promise<void> => {
      while (killed < randomKills && !failed) {
        killed++;
        // Odd kills hit fsync-bound deliveries (production), even ones the bare open/write/rename steps.
        const durable = killed % 2 === 1 ? "1" : "0";
        const worker = startSender({ COUNT: String(sendsUnbounded), DURABLE: durable });
        await worker.waitFor("ready", (lines) => lines.includes("ready"), 30_000);
        const delayMs = random.int(0, 40);
        // The random delay is the kill point, not a synchronisation: any moment is a valid one.
        await new Promise((resolve) => setTimeout(resolve, delayMs));
        const exit = await worker.kill();
        failed ||= exit.signal !== "SIGKILL";
        expect(exit.signal, `seed ${random.seed}: the sender ended on its own: ${worker.stderr()}`).toBe("SIGKILL");
        if (recordPrinted(worker).length > 0) withSends++;
        claimSome();
      }
    };
    await Promise.all(Array.from({ length: lanes }, lane));
    expect(killed).toBeGreaterThanOrEqual(randomKills);
    // Many kills must come after deliveries returned, or printed ids would prove nothing.
    expect(withSends, `seed ${random.seed}`).toBeGreaterThan(randomKills / 5);
    expect(claimProblems, `seed ${random.seed}`).toEqual([]);

    const waiting = readBox(root, recipient, "new");
    const claimed = readBox(root, recipient, "cur");
    expect(waiting.problems, `seed ${random.seed}`).toEqual([]);
    expect(claimed.problems, `seed ${random.seed}`).toEqual([]);
    const delivered = new Set([...waiting.ids, ...claimed.ids]);
    expect(delivered.size, "an envelope is in new/ or cur/, never both").toBe(waiting.ids.length + claimed.ids.length);
    const lost = [...printed].filter((id) => !delivered.has(id));
    expect(lost, `seed ${random.seed}: printed as sent but not delivered`).toEqual([]);
    expect(claimedIds.size).toBeGreaterThan(0);
    console.log(
      `kill-sender: seed ${random.seed}, ${killed} random kills (${withSends} after a printed send), ${printed.size} printed, ${delivered.size} delivered, ${tmpLeftovers().length} tmp/ leftovers`,
    );
  }, 150_000);

  it("tmp/ leftovers are never mail: no id of theirs is delivered, and sweepTmp removes exactly those older than the bound", async () => {
    // Four certain leftovers (empty, half, whole, whole), besides whatever earlier kills left.
    for (const point of deliveryPoints.filter((p) => p !== "after-rename")) await killAtStep(point);
    const leftovers = tmpLeftovers();
    expect(leftovers.length).toBeGreaterThanOrEqual(4);
    const delivered = new Set([...readBox(root, recipient, "new").ids, ...readBox(root, recipient, "cur").ids]);
    for (const name of leftovers) {
      const id = idOfName(name);
      expect(id, name).toBeDefined();
      expect(delivered.has(id!), `${name} is in tmp/ and delivered`).toBe(false);
      expect(printed.has(id!), `${name} is in tmp/ and was printed as sent`).toBe(false);
    }
    const mailBefore = { new: boxNames(root, recipient, "new"), cur: boxNames(root, recipient, "cur") };

    // Fresh leftovers may belong to a writer still at work: kept.
    expect(store.sweepTmp(recipient, Date.now(), tmpLeftoverAgeMs)._unsafeUnwrap()).toBe(0);
    expect(tmpLeftovers()).toEqual(leftovers);

    // Age half of them past the bound, and the rest to just inside it.
    const nowMs = Date.now();
    const aged = leftovers.filter((_, index) => index % 2 === 0);
    const young = leftovers.filter((_, index) => index % 2 === 1);
    const setMtime = (name: string, ms: number) => utimesSync(join(root, recipient, "tmp", name), ms / 1000, ms / 1000);
    for (const name of aged) setMtime(name, nowMs - tmpLeftoverAgeMs - 60_000);
    for (const name of young) setMtime(name, nowMs - tmpLeftoverAgeMs + 60_000);
    expect(store.sweepTmp(recipient, nowMs, tmpLeftoverAgeMs)._unsafeUnwrap()).toBe(aged.length);
    expect(tmpLeftovers()).toEqual(young);

    // Once they too are past the bound, tmp/ is empty; new/ and cur/ were never touched.
    for (const name of young) setMtime(name, nowMs - tmpLeftoverAgeMs - 1_000);
    expect(store.sweepTmp(recipient, nowMs, tmpLeftoverAgeMs)._unsafeUnwrap()).toBe(young.length);
    expect(tmpLeftovers()).toEqual([]);
    expect({ new: boxNames(root, recipient, "new"), cur: boxNames(root, recipient, "cur") }).toEqual(mailBefore);
  });
});
