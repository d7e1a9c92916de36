// A session that reads its bus inbox over and over, as Pi's `inbox` does with a session file: each
// read's message ids are printed (`shown`: the tool returned them), then recorded in TRANSCRIPT
// (one append of `<pid> <id>` lines: Pi writing the tool result into the session file), then
// `recorded` is printed. The host's `recorded` reads that file, as Pi's host reads the session's
// entries, so what a read set aside is dropped once recorded and put back otherwise.
//   AGENT_DIR, CWD, ID   where the bus is, where the session works, who (the same id at each restart)
//   TRANSCRIPT           the file of recorded ids, shared by every process of this session
//   SEED                 picks each read's limit (1 to 20)
//   DIE_AT               optional: "shown-<n>" SIGKILLs itself after its n-th read that showed mail
//                        returned, before recording it; "recorded-<n>" right after recording it;
//                        "aside-<n>" just before its n-th rename into or out of .shown/ (a set-aside
//                        or a put-back); "drop-<n>" just before its n-th unlink there (a drop)
// Stdin: "stop" reads until a read shows nothing, shuts the session down and exits.
// Stdout: ready, then per read {"ev":"shown","ids":[...]}, {"ev":"recorded","n"}; "done" at the end.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { createFsBusStore } from "../../../src/adapters/fs/bus/fs-bus-store.js";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { cryptoEntropy } from "../../../src/adapters/node/crypto-entropy.js";
import { createFsWatcher } from "../../../src/adapters/node/fs-watcher.js";
import { nodeFs } from "../../../src/adapters/node/node-fs.js";
import { nodeRealPaths } from "../../../src/adapters/node/node-real-paths.js";
import { createProcessProbe } from "../../../src/adapters/node/proc-probe.js";
import { currentUid } from "../../../src/adapters/node/process-user.js";
import { systemClock } from "../../../src/adapters/node/system-clock.js";
import { createBusEngine } from "../../../src/domain/bus/engine/index.js";
import type { BusHost } from "../../../src/ports/bus/bus-host.js";
import { busFolder, resolveBusPlace } from "../../../src/wiring/node-bus.js";
import { listen, print, required, sleep } from "../harness/bus-worker-io.js";

const transcript = required("TRANSCRIPT");
const dieAt = process.env.DIE_AT ?? "";
let seed = Number(process.env.SEED ?? "1") >>> 0;

/** A small LCG: each read's limit, replayed by SEED. */
function nextLimit(): number {
  seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
  return 1 + (seed % 20);
}

function recordedIds(): Set<string> {
  if (!existsSync(transcript)) return new Set();
  const text = readFileSync(transcript, "utf8");
  return new Set(text.split("\n").flatMap((line) => (line === "" ? [] : [line.slice(line.indexOf(" ") + 1)])));
}

const die = (): never => {
  process.kill(process.pid, "SIGKILL");
  throw new Error("unreachable: killed");
};

/** Node's fs, but SIGKILLed just before the DIE_AT-th rename or unlink in a .shown/ folder. */
function dyingFs(): FsLike {
  const [step, at] = dieAt.split("-");
  let count = 0;
  const maybeDie = (op: string, ...paths: string[]) => {
    if (op === step && paths.some((path) => path.includes("/.shown/")) && ++count === Number(at)) die();
  };
  return {
    ...nodeFs,
    renameSync(from, to) {
      maybeDie("aside", from, to);
      nodeFs.renameSync(from, to);
    },
    unlinkSync(path) {
      maybeDie("drop", path);
      nodeFs.unlinkSync(path);
    },
  };
}

const place = resolveBusPlace(required("CWD"));
if (place.isErr()) throw new Error(`bus-inbox-reader: no bus place: ${JSON.stringify(place.error)}`);
const host: BusHost = {
  raiseTurn: () => {},
  warn: (warning) => print({ ev: "warning", warning }),
  recorded(messageIds) {
    const known = recordedIds();
    return new Set(messageIds.filter((id) => known.has(id)));
  },
};
// Wired as production wires a session (src/wiring/node-bus.ts), over the fs above.
const engine = createBusEngine({
  store: createFsBusStore({
    fs: dyingFs(),
    root: busFolder(required("AGENT_DIR"), place.value),
    uid: currentUid(),
    entropy: cryptoEntropy,
    warn: (warning) => host.warn(warning),
  }),
  place: place.value,
  clock: systemClock,
  entropy: cryptoEntropy,
  probe: createProcessProbe(),
  watcher: createFsWatcher(),
  realPaths: nodeRealPaths,
  hopLimit: () => 5,
  host,
});
const id = required("ID");
engine.sessionStarted({ id, name: undefined }, "startup");
const joined = engine.join({ label: "reader", listen: false });
if (joined.isErr()) throw new Error(`bus-inbox-reader: join failed: ${JSON.stringify(joined.error)}`);

let stopping = false;
listen((line) => {
  if (line === "stop") stopping = true;
});

/** One read, shown and recorded; the number of messages it showed. */
function readOnce(showing: number): number {
  const read = engine.inbox(nextLimit());
  if (read.isErr()) {
    print({ ev: "failed", error: read.error });
    return 0;
  }
  const ids = read.value.rows.map((row) => row.message.id);
  if (ids.length === 0) return 0;
  print({ ev: "shown", n: showing, ids });
  if (dieAt === `shown-${showing}`) die();
  appendFileSync(transcript, ids.map((shown) => `${process.pid} ${shown}\n`).join(""));
  print({ ev: "recorded", n: showing });
  if (dieAt === `recorded-${showing}`) die();
  return ids.length;
}

print({ ev: "ready", id, label: joined.value.label, pid: process.pid });
let showing = 1;
for (;;) {
  const wasStopping = stopping;
  const shown = readOnce(showing);
  if (shown > 0) showing++;
  else if (wasStopping) break;
  // A turn of the event loop between reads (stdin is heard); a pause when there was nothing.
  await sleep(shown > 0 ? 0 : 2);
}
engine.shutdown("quit");
print({ ev: "done", count: showing - 1 });
process.exit(0);
