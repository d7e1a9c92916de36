// One session id in two real processes (`pi -c` in two panes): the first owns the inbox, the second
// only sends. When the owner is SIGKILLed with mail claimed and never read, the twin takes the inbox
// over and shows every such mail exactly once.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ownerCheckMs } from "../../src/domain/mail/limits.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers } from "./harness/children.js";
import { boxNames } from "./harness/mail.js";
import {
  deliver,
  exitCleanly,
  expectKilled,
  idsOf,
  newScene,
  startRecipient,
  transcript,
  waitForTranscript,
} from "./harness/recipient-scene.js";

const mails = 20;

let bundle: WorkerBundle | undefined;
let scratch: string;

beforeAll(async () => {
  bundle = await bundleWorkers(["recipient"]);
  scratch = mkdtempSync(join(tmpdir(), "stress-twin-"));
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  rmSync(scratch, { recursive: true, force: true });
});

describe("two processes on one session id", () => {
  it(
    `loses none of ${mails} mails the owner claimed and never showed when it is killed, and shows none twice`,
    async () => {
      const scene = newScene(scratch, bundle!.scripts.recipient);
      const owner = await startRecipient(scene, { DIE_AT: "enter-1" });
      const twin = await startRecipient(scene);
      await twin.waitFor(
        "the twin's notice",
        (lines) => lines.some((l) => l.includes("is held by another process")),
        10_000,
      );
      const sent = Array.from({ length: mails }, () => deliver(scene, "request"));
      await expectKilled(owner);
      // Claimed by the owner, never read: in its journal, out of new/, shown nowhere yet.
      expect(idsOf(owner, "injected").length).toBeGreaterThan(0);
      expect(idsOf(twin, "injected")).toEqual([]);
      await waitForTranscript(scene, sent, twin);
      expect(transcript(scene).toSorted()).toEqual(sent.map((e) => e.id).toSorted());
      expect(boxNames(scene.root, scene.recipient, "new")).toEqual([]);
      expect(twin.lines.filter((l) => l.startsWith("violation"))).toEqual([]);
      expect(twin.lines).toContainEqual(expect.stringMatching(/now holds this session's mailbox/));
      await exitCleanly(twin);
    },
    30_000 + ownerCheckMs,
  );
});
