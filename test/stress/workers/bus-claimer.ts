// A claiming session: joins the bus, then loops claim → hold → release over a few overlapping paths
// chosen by a seed, printing every outcome with the monotonic times it was called and returned.
//   AGENT_DIR, CWD, ID, LABEL   where the bus is, where the session works (a worktree or the repo), who
//   PATHS                       JSON array of the paths it picks from (relative to CWD)
//   COUNT                       claim calls before it leaves the bus and exits; 0: until killed
//   SEED                        its choices (which paths, how long it holds, whether it releases)
//   PICK_MAX, HOLD_MS_MAX       at most this many paths a claim, held at most this long
//   RELEASE                     "always": release what each claim took; "sometimes": every other
//                               claim on average, so a kill often finds it holding several
//   WAIT_GO                     "1": print ready, then start at a `go` line on stdin
//   OBSERVE                     "1": a third of the turns are an edit's check of one path instead
//                               (checkEdit: an observed claim when nobody holds it), logged as a claim
// Stdout: one JSON line per event (bus-worker-io.ts): ready, claim, release, done.

import { err, ok } from "neverthrow";
import { now, print, readyThenRun, required, sleep, startWorkerSession } from "../harness/bus-worker-io.js";
import { seededRandom } from "../harness/seeded-random.js";

const paths = JSON.parse(required("PATHS")) as string[];
const count = Number(required("COUNT"));
const random = seededRandom(required("SEED"));
const pickMax = Number(process.env.PICK_MAX ?? "3");
const holdMsMax = Number(process.env.HOLD_MS_MAX ?? "2");
const releaseAlways = (process.env.RELEASE ?? "always") === "always";
const label = required("LABEL");
const observe = process.env.OBSERVE === "1";

function pick(): string[] {
  const chosen = new Set<string>();
  const wanted = random.int(1, pickMax);
  while (chosen.size < wanted) chosen.add(paths[random.int(0, paths.length - 1)] as string);
  return [...chosen];
}

const { id, engine } = startWorkerSession();

/** An edit's check as a claim's outcome: observed (or held already) is a claim of that one key; a
 * live holder in the way is the refusal a claim would give. */
function editClaim(path: string): ReturnType<typeof engine.claim> {
  return engine.checkEdit(path).andThen((verdict) => {
    switch (verdict.kind) {
      case "observed":
        return ok({ claimed: [verdict.key], alreadyHeld: [] });
      case "held":
        return err({ kind: "claim-conflict" as const, conflicts: [verdict.conflict], race: verdict.race === true });
      default:
        throw new Error(`bus-claimer: an edit of ${path} found it ${verdict.kind}, not observed or held`);
    }
  });
}
const joined = engine.join({ label, listen: false });
if (joined.isErr()) throw new Error(`bus-claimer: join failed: ${JSON.stringify(joined.error)}`);

async function run(): Promise<void> {
  const held = new Set<string>();
  for (let n = 1; count === 0 || n <= count; n++) {
    // One turn of the event loop each time: a closed stdin (an orphan) is heard even in a tight loop.
    await new Promise((resolve) => setImmediate(resolve));
    const edits = observe && random.int(0, 2) === 0;
    const asked = edits ? pick().slice(0, 1) : pick();
    const s = now();
    const claimed = edits ? editClaim(asked[0] as string) : engine.claim(asked);
    const e = now();
    if (claimed.isErr()) {
      print({ ev: "claim", n, s, e, paths: asked, ok: false, error: claimed.error });
      continue;
    }
    const { claimed: keys, alreadyHeld } = claimed.value;
    print({ ev: "claim", n, s, e, paths: asked, ok: true, keys, alreadyHeld });
    for (const key of keys) held.add(key);
    const holdMs = random.int(0, holdMsMax);
    if (holdMs > 0) await sleep(holdMs);
    if (!releaseAlways && random.int(0, 1) === 0) continue;
    const toRelease = releaseAlways ? keys : [...held];
    const rs = now();
    const released = engine.release(toRelease);
    const re = now();
    print({
      ev: "release",
      n,
      s: rs,
      e: re,
      keys: toRelease,
      released: released.isOk() ? released.value.released : [],
      failed: released.isErr() ? JSON.stringify(released.error) : undefined,
    });
    held.clear();
  }
  engine.shutdown("quit");
  print({ ev: "done", count });
  process.exit(0);
}

await readyThenRun(id, joined.value.label, run);
