// A receiving session: a real mailbox engine on the real store, /proc probe, fs watcher and system
// clock, serving a fake Pi that models what matters for crash recovery:
//   - steered mail (triggerTurn) is queued in memory and enters the conversation on a later turn of
//     the event loop: then it is appended to TRANSCRIPT (Pi's session file) and messageEntered runs;
//   - quiet mail (a reply, triggerTurn false) is appended to TRANSCRIPT at once while idle, and held
//     in memory until the run settles while busy (Pi's _pendingCustomMessages); no message_end;
//   - hasShown(id) answers from TRANSCRIPT, which survives a SIGKILL (it is in the page cache).
// Stdout lines: `ready`, `injected <id> turn|quiet`, `entered <id>`, `appended <id>`, `settled`,
// `notice <level> <text>`, `violation <text>`. Stdin commands: `start` (a run starts), `settle`
// (the run completes), `exit` (clean shutdown).
//   ROOT, ADDRESS, AGENT_DIR, TRANSCRIPT   where everything lives
//   BUSY     "1": a run is active from the start
//   DIE_AT   `inject-<n>`: SIGKILL inside the n-th inject, before it takes effect (claimed, not injected);
//            `enter-<n>`: SIGKILL as the n-th steered mail is about to enter (injected, not read);
//            `settle-<n>`: SIGKILL as the n-th run settles, before held quiet mail is appended
import { appendFileSync, readFileSync, writeSync } from "node:fs";
import { createInterface } from "node:readline";
import { isAddress } from "../../../src/domain/mail/address.js";
import type { AgentHost, InjectedMail } from "../../../src/ports/mail/agent-host.js";
import { createNodeMailbox } from "../../../src/wiring/node-mailbox.js";

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === "") throw new Error(`recipient: ${name} is not set`);
  return value;
}

const root = required("ROOT");
const address = required("ADDRESS");
if (!isAddress(address)) throw new Error("recipient: ADDRESS is not an address");
const transcriptPath = required("TRANSCRIPT");
const dieAt = process.env.DIE_AT ?? "";

function print(line: string): void {
  writeSync(1, `${line.replace(/[\r\n]+/g, " ")}\n`);
}

function readTranscript(): Set<string> {
  try {
    return new Set(
      readFileSync(transcriptPath, "utf8")
        .split("\n")
        .filter((id) => id !== ""),
    );
  } catch {
    return new Set();
  }
}

const transcript = readTranscript();
const counts = { inject: 0, enter: 0, settle: 0 };
const steered: string[] = [];
const heldQuiet: string[] = [];
let busy = process.env.BUSY === "1";
let entering = false;

function dieIf(event: keyof typeof counts): void {
  counts[event]++;
  if (dieAt === `${event}-${counts[event]}`) process.kill(process.pid, "SIGKILL");
}

function show(id: string, verb: "entered" | "appended"): void {
  if (transcript.has(id)) print(`violation ${id} entered the conversation twice`);
  appendFileSync(transcriptPath, `${id}\n`);
  transcript.add(id);
  print(`${verb} ${id}`);
}

const host: AgentHost = {
  inject(mail: InjectedMail, options) {
    dieIf("inject");
    const id = mail.details.mailId;
    if (transcript.has(id) || steered.includes(id) || heldQuiet.includes(id)) print(`violation ${id} injected twice`);
    print(`injected ${id} ${options.triggerTurn ? "turn" : "quiet"}`);
    if (!options.triggerTurn) {
      if (busy) heldQuiet.push(id);
      else show(id, "appended");
      return;
    }
    steered.push(id);
    if (!entering) {
      entering = true;
      setImmediate(enterSteered);
    }
  },
  notify: (text, level) => print(`notice ${level} ${text}`),
  setStatus: () => {},
  hasShown: (id) => transcript.has(id),
};

const engine = createNodeMailbox({ host, agentDir: required("AGENT_DIR"), root, pollIntervalMs: 20 });

/** The model reads the queued steers at its next gap: each enters the conversation in order. */
function enterSteered(): void {
  entering = false;
  for (let id = steered.shift(); id !== undefined; id = steered.shift()) {
    dieIf("enter");
    show(id, "entered");
    engine.messageEntered(id);
  }
}

function settle(): void {
  dieIf("settle");
  for (let id = heldQuiet.shift(); id !== undefined; id = heldQuiet.shift()) show(id, "appended");
  engine.runSettled({ kind: "done", text: "done" });
  busy = false;
  print("settled");
}

const input = createInterface({ input: process.stdin });
// stdin ends when the test runner is gone: an orphan must not linger.
input.on("close", () => process.exit(0));
input.on("line", (line) => {
  if (line === "start") {
    busy = true;
    engine.runStarted();
  } else if (line === "settle") settle();
  else if (line === "exit") {
    engine.shutdown();
    process.exit(0);
  }
});

engine.sessionStarted({ address, name: "recipient", cwd: process.cwd() });
if (busy) engine.runStarted();
// The engine recovers and scans on its deferred start-up turn, which runs before this one.
setImmediate(() => print("ready"));
