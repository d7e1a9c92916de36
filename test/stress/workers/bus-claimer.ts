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
//   HANDOFF                     "1": every turn first accepts the handoffs in its inbox (holding what
//                               it took a moment, then releasing it); one claim in OFFER_ONE_IN is
//                               offered to a peer of PEERS (JSON labels), held OFFER_HOLD_MS_MAX at
//                               most, then released: what the peer took by then is not released here
// Stdout: one JSON line per event (bus-worker-io.ts): ready, claim, offer, accept, release, done.

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
const handoff = process.env.HANDOFF === "1";
const peers = (handoff ? JSON.parse(required("PEERS")) : []) as string[];
const offerOneIn = Number(process.env.OFFER_ONE_IN ?? "3");
const offerHoldMsMax = Number(process.env.OFFER_HOLD_MS_MAX ?? "20");

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

let accepts = 0;

/** Accepts every handoff waiting in the inbox, holds what each moved a moment, and releases it. */
async function acceptOffers(): Promise<void> {
  const waiting = engine.inboxIds();
  if (waiting.isErr() || waiting.value.size === 0) return;
  const read = engine.inbox(undefined);
  if (read.isErr()) throw new Error(`bus-claimer: inbox failed: ${JSON.stringify(read.error)}`);
  for (const { message } of read.value.rows) {
    if (message.kind !== "handoff") continue;
    const a = ++accepts;
    const s = now();
    const accepted = engine.accept(message.id);
    const e = now();
    if (accepted.isErr()) {
      print({ ev: "accept", a, s, e, id: message.id, paths: message.paths, ok: false, error: accepted.error });
      continue;
    }
    const { taken, released } = accepted.value;
    const { lost } = accepted.value;
    print({ ev: "accept", a, s, e, id: message.id, paths: message.paths, ok: true, taken, released, lost });
    const holdMs = random.int(0, holdMsMax);
    if (holdMs > 0) await sleep(holdMs);
    const rs = now();
    const gave = engine.release(taken);
    const re = now();
    print({
      ev: "release",
      of: "accept",
      n: a,
      s: rs,
      e: re,
      keys: taken,
      released: gave.isOk() ? gave.value.released : [],
      failed: gave.isErr() ? JSON.stringify(gave.error) : undefined,
    });
  }
}

/** Offers what a claim just took to a random peer; true when the offer was made. */
function offer(n: number, keys: readonly string[]): boolean {
  const to = peers[random.int(0, peers.length - 1)] as string;
  const s = now();
  const sent = engine.send({ to, kind: "handoff", text: "take these", paths: keys });
  const e = now();
  if (sent.isErr()) {
    print({ ev: "offer", n, s, e, to, keys, ok: false, error: sent.error });
    return false;
  }
  print({ ev: "offer", n, s, e, to, keys, ok: true, id: sent.value.messageId });
  return true;
}

async function run(): Promise<void> {
  const held = new Set<string>();
  for (let n = 1; count === 0 || n <= count; n++) {
    // One turn of the event loop each time: a closed stdin (an orphan) is heard even in a tight loop.
    await new Promise((resolve) => setImmediate(resolve));
    if (handoff) await acceptOffers();
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
    const offered = handoff && !edits && keys.length > 0 && random.int(1, offerOneIn) === 1 && offer(n, keys);
    const holdMs = offered ? random.int(1, offerHoldMsMax) : random.int(0, holdMsMax);
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
