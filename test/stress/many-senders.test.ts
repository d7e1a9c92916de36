// Eight real sending processes race into one inbox while its owner, a real engine in this process,
// claims concurrently. Maildir delivery (exclusive create in tmp/, write, fsync, rename into new/)
// and claim by rename must hand every envelope to the owner exactly once and whole.
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { createConfigFile } from "../../src/adapters/node/config-file.js";
import { cryptoEntropy } from "../../src/adapters/node/crypto-entropy.js";
import { createFsWatcher } from "../../src/adapters/node/fs-watcher.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { createProcessProbe } from "../../src/adapters/node/proc-probe.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import { systemClock } from "../../src/adapters/node/system-clock.js";
import type { Address } from "../../src/domain/mail/address.js";
import { createMailboxEngine, type MailboxEngine } from "../../src/domain/mail/engine/index.js";
import type { AgentHost } from "../../src/ports/mail/agent-host.js";
import type { ClaimOutcome, MailStore } from "../../src/ports/mail/mail-store.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers, spawnWorker, type Worker, waitUntil } from "./harness/children.js";
import { boxNames, idOfName, newAddress, readBox } from "./harness/mail.js";

const senders = 8;
const sendsEach = 500;
const total = senders * sendsEach;

let bundle: WorkerBundle | undefined;
let scratch: string;

beforeAll(async () => {
  bundle = await bundleWorkers(["sender"]);
  scratch = mkdtempSync(join(tmpdir(), "stress-many-senders-"));
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  // Asynchronous on purpose: unlinking thousands of fsynced files is several times faster in parallel.
  await rm(scratch, { recursive: true, force: true });
});

interface Owner {
  engine: MailboxEngine;
  /** Every outcome of store.claim, in order (an errno as `error`). */
  claims: Array<ClaimOutcome | { kind: "error"; name: string }>;
  /** Mail ids the engine injected, in order (duplicates kept). */
  injected: string[];
  notices: string[];
  /** How many scans claimed at least one envelope, plus the claims of watcher hints. */
  batches: number;
  firstClaimAtMs: number | undefined;
}

/** The owner's engine, on a store that records every claim, serving a host that enters each
 * injected mail on the next turn of the event loop (as Pi does between model calls). */
function startOwner(root: string, address: Address, agentDir: string): Owner {
  const store = createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
  const seen: Omit<Owner, "engine"> = { claims: [], injected: [], notices: [], batches: 0, firstClaimAtMs: undefined };
  let lastListing = -1;
  const recording: MailStore = {
    ...store,
    listNew(at) {
      lastListing = seen.claims.length;
      return store.listNew(at);
    },
    claim(at, name) {
      const outcome = store.claim(at, name);
      if (seen.claims.length === lastListing) seen.batches++;
      seen.firstClaimAtMs ??= Date.now();
      seen.claims.push(outcome.isOk() ? outcome.value : { kind: "error", name });
      return outcome;
    },
    // A watcher hint's claim is a batch of its own (a stale hint, which claims nothing, is none).
    claimHinted(at, name, journal) {
      const outcome = store.claimHinted(at, name, journal);
      if (outcome.isOk() && outcome.value === undefined) return outcome;
      seen.batches++;
      seen.firstClaimAtMs ??= Date.now();
      seen.claims.push(outcome.isOk() && outcome.value !== undefined ? outcome.value : { kind: "error", name });
      return outcome;
    },
  };
  const toEnter: string[] = [];
  const host: AgentHost = {
    inject(mail) {
      seen.injected.push(mail.details.mailId);
      if (toEnter.push(mail.details.mailId) === 1) {
        setImmediate(() => {
          for (const id of toEnter.splice(0)) engine.messageEntered(id);
        });
      }
    },
    notify: (text, level) => void seen.notices.push(`${level}: ${text}`),
    setStatus: () => {},
    hasShown: () => false,
  };
  const engine = createMailboxEngine({
    store: recording,
    probe: createProcessProbe(),
    clock: systemClock,
    watcher: createFsWatcher(),
    entropy: cryptoEntropy,
    host,
    config: createConfigFile(agentDir),
    durable: true,
    pollIntervalMs: 25,
    watch: true,
  });
  engine.sessionStarted({ address, name: "owner", cwd: root });
  return Object.assign(seen, { engine });
}

function sentIds(worker: Worker): string[] {
  return worker.lines.filter((line) => line.startsWith("sent ")).map((line) => line.slice("sent ".length));
}

describe("many senders, one inbox", () => {
  it(`delivers ${senders} processes × ${sendsEach} concurrent sends to a concurrently claiming owner: each envelope exactly once, whole`, async () => {
    const root = join(scratch, "mail");
    const ownerAddress = newAddress();
    const owner = startOwner(root, ownerAddress, join(scratch, "agent"));
    try {
      const workers = Array.from({ length: senders }, () =>
        spawnWorker(bundle!.scripts.sender, {
          ROOT: root,
          FROM: newAddress(),
          TO: ownerAddress,
          COUNT: String(sendsEach),
          DURABLE: "1",
          WAIT_GO: "1",
        }),
      );
      // All of them loaded and waiting, so the sends really overlap.
      await Promise.all(workers.map((w) => w.waitFor("ready", (lines) => lines.includes("ready"), 30_000)));
      for (const worker of workers) worker.send("go");
      await Promise.all(
        workers.map((w) => w.waitFor(`done ${sendsEach}`, (lines) => lines.includes(`done ${sendsEach}`), 90_000)),
      );
      const lastSendDoneAtMs = Date.now();
      const exits = await Promise.all(workers.map((w) => w.closed));
      expect(exits.every((exit) => exit.code === 0)).toBe(true);
      await waitUntil("the owner claimed and entered every envelope", () => owner.injected.length >= total, 30_000);
      // One more poll would claim anything left behind; nothing may be.
      owner.engine.scan();

      const printed = workers.flatMap(sentIds);
      expect(printed).toHaveLength(total);
      expect(new Set(printed).size).toBe(total);

      // Every claim renamed a whole envelope: nothing set aside, nothing lost to a rival, every text decodes.
      const kinds = new Set(owner.claims.map((c) => c.kind));
      expect([...kinds]).toEqual(["claimed"]);
      const claimedIds = owner.claims.map((c) => {
        if (c.kind !== "claimed") return `not claimed: ${c.name}`;
        return idOfName(c.name) === c.envelope.id ? c.envelope.id : `torn: ${c.name}`;
      });
      expect(claimedIds).toHaveLength(total);
      expect(new Set(claimedIds)).toEqual(new Set(printed));

      // Each id injected exactly once, and no warning (a torn or invalid file would warn).
      expect(owner.injected).toHaveLength(total);
      expect(new Set(owner.injected)).toEqual(new Set(printed));
      expect(owner.notices).toEqual([]);

      // On disk: new/ drained, cur/ holds all of them whole, tmp/ holds nothing of a delivery.
      expect(boxNames(root, ownerAddress, "new")).toEqual([]);
      const cur = readBox(root, ownerAddress, "cur");
      expect(cur.problems).toEqual([]);
      expect(new Set(cur.ids)).toEqual(new Set(printed));
      expect(boxNames(root, ownerAddress, "tmp")).toEqual([]);

      // The race was real: the owner claimed many times, starting while senders were still writing.
      expect(owner.batches).toBeGreaterThan(1);
      expect(owner.firstClaimAtMs).toBeLessThan(lastSendDoneAtMs);
    } finally {
      owner.engine.shutdown();
      await killAllWorkers();
    }
  }, 150_000);
});
