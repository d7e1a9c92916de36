// A session that keeps sending to one peer until told to stop, while that peer is killed and
// restarted: a send refused because the peer is gone or not on the bus yet is tried again a moment
// later, so each printed `sent` was published exactly once.
//   AGENT_DIR, CWD, ID   where the bus is, where the session works, who
//   TO                   the recipient's session id
// Stdin: "stop" ends the sending; the process prints done and exits.
// Stdout: ready, then {"ev":"sent","seq","id"} per message published, then done.
import { listen, print, required, sleep, startWorkerSession } from "../harness/bus-worker-io.js";

const to = required("TO");
const { id, engine } = startWorkerSession();
const joined = engine.join({ label: "sender", listen: false });
if (joined.isErr()) throw new Error(`bus-steady-sender: join failed: ${JSON.stringify(joined.error)}`);

let stopping = false;
listen((line) => {
  if (line === "stop") stopping = true;
});

async function run(): Promise<void> {
  let seq = 1;
  while (!stopping) {
    const sent = engine.send({ to, text: `steady ${seq}` });
    if (sent.isOk()) {
      print({ ev: "sent", seq, id: sent.value.messageId });
      seq++;
    } else if (sent.error.kind !== "recipient-gone" && sent.error.kind !== "no-recipient") {
      throw new Error(`bus-steady-sender: send ${seq} failed: ${JSON.stringify(sent.error)}`);
    }
    // A short pause each time, a longer one while the peer is away: sends span every restart.
    await sleep(sent.isOk() ? 1 : 5);
  }
  engine.shutdown("quit");
  print({ ev: "done", count: seq - 1 });
  process.exit(0);
}

print({ ev: "ready", id, label: joined.value.label, pid: process.pid });
await run();
