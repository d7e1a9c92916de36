// A session that keeps its mailbox and nothing else: a real engine on the real store, /proc probe,
// fs watcher and system clock, serving a host that shows nothing. It lists and prunes on command,
// so a test can see what this process judges of the others' records.
// Stdout lines: `ready <pid> <pid namespace>`, `listed <json>`, `pruned <n>`.
// Stdin commands: `list`, `prune`, `exit` (clean shutdown). It ends when stdin ends.
//   ROOT, ADDRESS, AGENT_DIR, NAME   where everything lives, and the session's name
import { readlinkSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { isAddress } from "../../../src/domain/mail/address.js";
import { createNodeMailbox } from "../../../src/wiring/node-mailbox.js";

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`idle-session: ${name} is not set`);
  return value;
}

function print(line: string): void {
  writeSync(1, `${line.replace(/[\r\n]+/g, " ")}\n`);
}

function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "none";
  }
}

const address = required("ADDRESS");
if (!isAddress(address)) throw new Error("idle-session: ADDRESS is not an address");
const engine = createNodeMailbox({
  host: { inject: () => {}, notify: (text) => print(`notice ${text}`), setStatus: () => {}, hasShown: () => false },
  agentDir: required("AGENT_DIR"),
  root: required("ROOT"),
});

const input = createInterface({ input: process.stdin });
// stdin ends when the test runner is gone: an orphan must not linger.
input.on("close", () => process.exit(0));
input.on("line", (line) => {
  if (line === "list") print(`listed ${JSON.stringify(engine.list())}`);
  else if (line === "prune") {
    const pruned = engine.prune();
    print(`pruned ${pruned.isOk() ? pruned.value : pruned.error.kind}`);
  } else if (line === "exit") {
    engine.shutdown();
    process.exit(0);
  }
});

engine.sessionStarted({ address, name: required("NAME"), cwd: process.cwd() });
setImmediate(() => print(`ready ${process.pid} ${pidNamespace()}`));
