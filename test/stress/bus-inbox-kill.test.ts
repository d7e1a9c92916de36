// A session reading its bus inbox, SIGKILLed at random points while a peer keeps sending, and
// restarted under the same session id each time, over the real file system. `inbox` moves what it
// shows into the inbox's .shown/ folder and deletes it only once the session recorded the tool
// result (a transcript file stands in for Pi's session file); what a killed process never recorded
// goes back into the inbox at the next read. So at the end every message sent was recorded once:
// none lost, and none shown again once a read of it was recorded. Kills land at chosen points (after
// a read returned and before it was recorded; right after it was recorded) and at random moments
// (inside a read, a set-aside, a settle). STRESS_SEED=<n> replays the choices.
import { randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type BusRepo, createBusRepo } from "./harness/bus-repo.js";
import { type BusWorkerBundle, bundleBusWorkers } from "./harness/bus-workers.js";
import { killAllWorkers, spawnWorker, type Worker, waitUntil } from "./harness/children.js";
import { seededRandom } from "./harness/seeded-random.js";

const rounds = 50;
/** Where a reader kills itself (the worker's DIE_AT); every fifth round is killed from outside. */
const dieAt = ["shown", "recorded", "aside", "drop"] as const;
const waitMs = 20_000;
const testMs = 90_000;

let bundle: BusWorkerBundle | undefined;
let repo: BusRepo | undefined;

beforeAll(async () => {
  bundle = await bundleBusWorkers(["bus-inbox-reader", "bus-steady-sender"]);
  repo = createBusRepo("stress-bus-inbox-kill");
});

afterAll(async () => {
  await killAllWorkers();
  bundle?.dispose();
  await repo?.dispose();
});

interface Line {
  ev: string;
  id?: string;
  ids?: string[];
}

function parsed(worker: Worker): Line[] {
  return worker.lines.flatMap((line) => (line.startsWith("{") ? [JSON.parse(line) as Line] : []));
}

const shownIn = (worker: Worker): string[][] =>
  parsed(worker).flatMap((line) => (line.ev === "shown" && line.ids !== undefined ? [line.ids] : []));

const has = (ev: string) => (lines: readonly string[]) => lines.some((line) => line.includes(`"ev":"${ev}"`));

/** `<pid> <id>` per recorded message, in the order they were recorded. */
function recorded(transcript: string): { pid: number; id: string }[] {
  if (!existsSync(transcript)) return [];
  return readFileSync(transcript, "utf8")
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => ({ pid: Number(line.slice(0, line.indexOf(" "))), id: line.slice(line.indexOf(" ") + 1) }));
}

const duplicates = (ids: readonly string[]) => ids.filter((id, i) => ids.indexOf(id) !== i);

describe("a bus inbox reader killed at random points, restarted under the same session id", () => {
  it(
    "loses no message and shows none again after a recorded read, while a peer keeps sending",
    async () => {
      const r = repo!;
      const random = seededRandom();
      const readerId = randomUUID();
      const transcript = join(r.base, "transcript");
      const env = { AGENT_DIR: r.agentDir, CWD: r.repo };
      const reader = (extra: Record<string, string>) =>
        spawnWorker(bundle!.scripts["bus-inbox-reader"], {
          ...env,
          ID: readerId,
          TRANSCRIPT: transcript,
          SEED: String(random.int(1, 2 ** 30)),
          ...extra,
        });
      const runs: Worker[] = [];
      let sender: Worker | undefined;
      try {
        // The reader joins first, so the sender's first sends find it.
        const first = reader({ DIE_AT: "shown-2" });
        runs.push(first);
        await first.waitFor("the first reader is ready", has("ready"), waitMs);
        sender = spawnWorker(bundle!.scripts["bus-steady-sender"], { ...env, ID: randomUUID(), TO: readerId });
        await first.waitFor(`killed itself (seed ${random.seed})`, () => first.hasClosed(), waitMs);
        for (let round = 1; round < rounds; round++) {
          const kind = dieAt[round % (dieAt.length + 1)];
          const at = random.int(1, 4);
          const run = reader(kind === undefined ? {} : { DIE_AT: `${kind}-${at}` });
          runs.push(run);
          const what = `round ${round} (${kind ?? "outside"}, at ${at}, seed ${random.seed})`;
          if (kind !== undefined) {
            await run.waitFor(`${what}: killed itself`, () => run.hasClosed(), waitMs);
            continue;
          }
          // A kill from outside at a random moment: inside a read, a set-aside or a settle.
          await run.waitFor(`${what}: ready`, has("ready"), waitMs);
          await new Promise((resolve) => setTimeout(resolve, random.int(0, 120)));
          await run.kill();
        }
        sender.send("stop");
        await sender.waitFor("the sender stopped", has("done"), waitMs);
        const sent = parsed(sender).flatMap((line) => (line.ev === "sent" && line.id !== undefined ? [line.id] : []));
        const last = reader({});
        runs.push(last);
        await waitUntil(
          "every sent message recorded",
          () => {
            const ids = new Set(recorded(transcript).map((entry) => entry.id));
            return last.hasClosed() || sent.every((id) => ids.has(id));
          },
          waitMs,
          // A message lost for good never comes: the assertions below name it.
        ).catch(() => {});
        last.send("stop");
        await last.waitFor("the last reader shut down", has("done"), waitMs);
        await last.closed;

        const entries = recorded(transcript);
        const ids = entries.map((entry) => entry.id);
        // Nothing lost, nothing recorded twice, nothing recorded that was not sent.
        expect(sent.length).toBeGreaterThan(rounds);
        expect(sent.filter((id) => !ids.includes(id))).toEqual([]);
        expect(duplicates(ids)).toEqual([]);
        expect(new Set(ids)).toEqual(new Set(sent));
        // Once recorded, never shown again: neither later in that process nor by a later one.
        const recordedIn = new Map(entries.map((entry) => [entry.id, runs.findIndex((run) => run.pid === entry.pid)]));
        const shownAfter: string[] = [];
        for (const [index, run] of runs.entries()) {
          const shown = shownIn(run).flat();
          for (const id of shown) if ((recordedIn.get(id) ?? Number.POSITIVE_INFINITY) < index) shownAfter.push(id);
          shownAfter.push(...duplicates(shown));
        }
        expect(shownAfter).toEqual([]);
        // The window was hit: mail shown by a process killed before it recorded it came back, once.
        const unrecorded = runs.flatMap((run, index) =>
          shownIn(run)
            .flat()
            .filter((id) => recordedIn.get(id) !== index),
        );
        expect(unrecorded.length).toBeGreaterThan(0);
        // Nothing is left in the inbox, nor set aside.
        const inbox = join(r.bus, "inbox", readerId);
        const left = existsSync(inbox) ? readdirSync(inbox).filter((name) => name !== ".shown") : [];
        const aside = existsSync(join(inbox, ".shown")) ? readdirSync(join(inbox, ".shown")) : [];
        expect({ left, aside }).toEqual({ left: [], aside: [] });
      } finally {
        await Promise.all([...runs, ...(sender === undefined ? [] : [sender])].map((worker) => worker.kill()));
      }
    },
    testMs,
  );
});
