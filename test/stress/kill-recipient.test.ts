// A receiving session SIGKILLed between claiming mail and showing it, then restarted under the
// same address. How the engine recovers, which these tests pin with real processes:
//   1. Before a scan claims a batch, it writes the batch's file names (plus the mail already
//      injected and not yet read) to <address>/claiming.json (temp file + rename).
//   2. It claims each name by renaming new/ → cur/, reads it and injects it into the host.
//   3. A name leaves the journal only when that mail entered the conversation (messageEntered,
//      from Pi's message_end), a listener took it over, or it was answered; quiet mail (a reply
//      shown without a turn, which gets no message_end and which Pi holds in memory during a run)
//      leaves it when the run settles, or at a shutdown while idle. After the batch the journal
//      is rewritten from the mail injected and not yet read (read mail is dropped lazily).
//   4. At restart, before anything new is claimed, the engine reads the journal and re-delivers
//      every listed name that is in cur/ and that the host has not shown (AgentHost.hasShown, Pi's
//      session file); names still in new/ are simply claimed by the next scan.
// So mail claimed but never injected, or injected but lost from Pi's memory before it was read,
// is shown once after the restart: never lost, never shown twice.
import { mkdtempSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Envelope } from "../../src/domain/mail/envelope.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers, type Worker } from "./harness/children.js";
import { boxNames } from "./harness/mail.js";
import {
  deliver,
  exitCleanly,
  expectAllShownOnce,
  expectKilled,
  has,
  idsOf,
  journal,
  type Scene,
  newScene as sceneIn,
  startRecipient,
  transcript,
  waitForTranscript,
  waitMs,
} from "./harness/recipient-scene.js";
import { seededRandom } from "./harness/seeded-random.js";

const testMs = 60_000;

let bundle: WorkerBundle | undefined;
let scratch: string;

beforeAll(async () => {
  bundle = await bundleWorkers(["recipient"]);
  scratch = mkdtempSync(join(tmpdir(), "stress-kill-recipient-"));
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await rm(scratch, { recursive: true, force: true });
});

const newScene = () => sceneIn(scratch, bundle!.scripts.recipient);

/** Two requests the recipient reads, then the third, on which it dies (its DIE_AT). */
async function twoThenDoomed(scene: Scene, first: Worker): Promise<{ sent: Envelope[]; doomed: Envelope }> {
  const sent: Envelope[] = [];
  for (let n = 1; n <= 2; n++) {
    const mail = deliver(scene, "request");
    sent.push(mail);
    await first.waitFor(`mail ${n} entered`, has(`entered ${mail.id}`), waitMs);
  }
  const doomed = deliver(scene, "request");
  sent.push(doomed);
  await expectKilled(first);
  return { sent, doomed };
}

describe("a recipient killed between claim and read, restarted under the same address", () => {
  it(
    "mail claimed but never injected (killed inside the injection) is shown once by the restarted session",
    async () => {
      const scene = newScene();
      const first = await startRecipient(scene, { DIE_AT: "inject-3" });
      const { sent, doomed } = await twoThenDoomed(scene, first);
      // Claimed (in cur/), listed in the journal, never injected nor shown.
      expect(boxNames(scene.root, scene.recipient, "cur").some((name) => name.includes(doomed.id))).toBe(true);
      expect(journal(scene)?.some((name) => name.includes(doomed.id))).toBe(true);
      expect(idsOf(first, "injected")).not.toContain(doomed.id);

      const second = await startRecipient(scene);
      await second.waitFor("the claimed mail entered", has(`entered ${doomed.id}`), waitMs);
      for (let n = 0; n < 2; n++) {
        const mail = deliver(scene, "request");
        sent.push(mail);
        await second.waitFor("later mail entered", has(`entered ${mail.id}`), waitMs);
      }
      await exitCleanly(second);
      expectAllShownOnce(scene, sent);
      // Nothing was injected by both processes.
      expect(idsOf(first, "injected").filter((id) => idsOf(second, "injected").includes(id))).toEqual([]);
    },
    testMs,
  );

  it(
    "mail injected but not yet read (killed before it entered the conversation) is injected again and shown once",
    async () => {
      const scene = newScene();
      const first = await startRecipient(scene, { DIE_AT: "enter-3" });
      const { sent, doomed } = await twoThenDoomed(scene, first);
      expect(idsOf(first, "injected")).toContain(doomed.id);
      expect(transcript(scene)).not.toContain(doomed.id);
      expect(journal(scene)?.some((name) => name.includes(doomed.id))).toBe(true);

      const second = await startRecipient(scene);
      await second.waitFor("the unread mail entered", has(`entered ${doomed.id}`), waitMs);
      await exitCleanly(second);
      expectAllShownOnce(scene, sent);
      // Only the mail lost from the first process's memory was injected twice.
      expect(idsOf(first, "injected").filter((id) => idsOf(second, "injected").includes(id))).toEqual([doomed.id]);
    },
    testMs,
  );

  it(
    "a batch cut at its third injection: the injected, the claimed and the still-waiting mail are each shown once",
    async () => {
      const scene = newScene();
      const sent = Array.from({ length: 6 }, () => deliver(scene, "request"));
      const first = await startRecipient(scene, { DIE_AT: "inject-3" });
      await expectKilled(first);
      // One scan: journal written for all six, two injected (unread), the third claimed, three still in new/.
      expect(first.lines.filter((line) => line.startsWith("injected"))).toHaveLength(2);
      expect(journal(scene)).toHaveLength(6);
      expect(boxNames(scene.root, scene.recipient, "cur")).toHaveLength(3);
      expect(boxNames(scene.root, scene.recipient, "new")).toHaveLength(3);
      expect(transcript(scene)).toEqual([]);

      const second = await startRecipient(scene);
      await second.waitFor(
        "all six entered",
        (lines) => sent.every((mail) => lines.includes(`entered ${mail.id}`)),
        waitMs,
      );
      await exitCleanly(second);
      expectAllShownOnce(scene, sent);
    },
    testMs,
  );

  it(
    "a reply held in memory during a run (Pi appends it when the turn ends) and killed before then is shown once after the restart",
    async () => {
      const scene = newScene();
      // A reply to a request this session sent earlier (no sent copy here, so not an ask): quiet mail.
      const request = deliver(scene, "request");
      const reply = deliver(scene, "reply", ["0b6a3c2e-1111-4222-8333-444455556666"]);
      const first = await startRecipient(scene, { BUSY: "1", DIE_AT: "settle-1" });
      await first.waitFor("the request entered", has(`entered ${request.id}`), waitMs);
      await first.waitFor("the reply was injected", has(`injected ${reply.id} quiet`), waitMs);
      expect(transcript(scene)).toEqual([request.id]);
      first.send("settle");
      await expectKilled(first);

      // Recovery runs before `ready`, and an idle session appends quiet mail at once.
      const second = await startRecipient(scene);
      expect(idsOf(second, "appended")).toEqual([reply.id]);
      await exitCleanly(second);
      expectAllShownOnce(scene, [request, reply]);
    },
    testMs,
  );

  it(
    "a run that settles normally shows its held reply once and leaves an empty journal behind",
    async () => {
      const scene = newScene();
      const request = deliver(scene, "request");
      const reply = deliver(scene, "reply", ["0b6a3c2e-1111-4222-8333-444455556666"]);
      const first = await startRecipient(scene, { BUSY: "1" });
      await first.waitFor("the request entered", has(`entered ${request.id}`), waitMs);
      await first.waitFor("the reply was injected", has(`injected ${reply.id} quiet`), waitMs);
      first.send("settle");
      await first.waitFor("settled", has("settled"), waitMs);
      expect(idsOf(first, "appended")).toEqual([reply.id]);
      await exitCleanly(first);
      // A restart finds nothing to re-deliver.
      const second = await startRecipient(scene);
      await exitCleanly(second);
      expect(idsOf(second, "injected")).toEqual([]);
      expectAllShownOnce(scene, [request, reply]);
    },
    testMs,
  );

  it(
    "kills at random claim and read points over repeated restarts lose nothing and show nothing twice",
    async () => {
      const random = seededRandom();
      const scene = newScene();
      const sent: Envelope[] = [];
      for (let round = 0; round < 8; round++) {
        const fresh = Array.from({ length: random.int(1, 4) }, () => deliver(scene, "request"));
        sent.push(...fresh);
        // Any injection or reading of this run; with mail recovered from earlier rounds there may be
        // more of them than fresh mail, and a point beyond the last one lets the run live.
        const point = `${random.int(0, 1) === 0 ? "inject" : "enter"}-${random.int(1, fresh.length + 1)}`;
        const run = await startRecipient(scene, { DIE_AT: point });
        await run.waitFor(
          `round ${round} (${point}, seed ${random.seed}): killed or everything shown`,
          () => run.hasClosed() || sent.every((mail) => transcript(scene).includes(mail.id)),
          waitMs,
        );
        if (!run.hasClosed()) await exitCleanly(run);
      }
      const last = await startRecipient(scene);
      await waitForTranscript(scene, sent, last);
      await exitCleanly(last);
      expectAllShownOnce(scene, sent);
    },
    testMs,
  );
});
