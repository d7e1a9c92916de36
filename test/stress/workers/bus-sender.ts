// A sending session: joins the bus (not listening), then sends COUNT numbered messages to one peer,
// printing `sent` after each send returned, so every printed message was published.
//   AGENT_DIR, CWD, ID, LABEL   where the bus is, where the session works, who
//   TO                          the recipient (a label or a session id)
//   COUNT                       messages; each text is `<LABEL> <seq>`, seq from 1
//   WAIT_GO                     "1": print ready, then start at a `go` line on stdin
// Stdout: one JSON line per event (bus-worker-io.ts): ready, sent, done.
import { print, readyThenRun, required, startWorkerSession } from "../harness/bus-worker-io.js";

const label = required("LABEL");
const to = required("TO");
const count = Number(required("COUNT"));

const { id, engine } = startWorkerSession();
const joined = engine.join({ label, listen: false });
if (joined.isErr()) throw new Error(`bus-sender: join failed: ${JSON.stringify(joined.error)}`);

async function run(): Promise<void> {
  for (let seq = 1; seq <= count; seq++) {
    const sent = engine.send({ to, text: `${label} ${seq}` });
    if (sent.isErr()) throw new Error(`bus-sender: send ${seq} failed: ${JSON.stringify(sent.error)}`);
    print({ ev: "sent", seq, id: sent.value.messageId });
    // One turn of the event loop every few sends: a closed stdin (an orphan) is heard.
    if (seq % 16 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  engine.shutdown("quit");
  print({ ev: "done", count });
  process.exit(0);
}

await readyThenRun(id, joined.value.label, run);
