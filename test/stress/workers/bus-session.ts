// A session driven line by line: each stdin line is one action of the `session` tool as JSON, and
// each answer one stdout line, so a test can bound every action in time and kill a session that
// blocks. A thrown error is answered too (`threw`): the engine must never throw.
//   AGENT_DIR, CWD, ID   where the bus is, where the session works, who
// Stdin: {"op":"join"|"status"|"send"|"inbox"|"claim"|"release"|"accept"|"shutdown", ...arguments}
// Stdout: {"ev":"ready",...} once, then per line {"ev":"result","op","ok","value"|"error","described","ms"}
//         or {"ev":"result","op","threw":"<stack>"}
import type { Result } from "neverthrow";
import { type BusError, describeBusError } from "../../../src/domain/bus/bus-errors.js";
import type { BusEngine } from "../../../src/domain/bus/engine/index.js";
import { listen, print, startWorkerSession } from "../harness/bus-worker-io.js";

interface Command {
  op: string;
  label?: string;
  listen?: boolean;
  to?: string;
  text?: string;
  kind?: string;
  paths?: string[];
  limit?: number;
  id?: string;
}

type Answer = Result<unknown, BusError> | undefined;

function act(engine: BusEngine, command: Command): Answer {
  switch (command.op) {
    case "join":
      return engine.join({ label: command.label, listen: command.listen });
    case "status":
      return engine.status();
    case "send":
      return engine.send({ to: command.to, text: command.text, kind: command.kind, paths: command.paths });
    case "inbox":
      return engine.inbox(command.limit);
    case "claim":
      return engine.claim(command.paths ?? []);
    case "release":
      return engine.release(command.paths ?? []);
    case "accept":
      return engine.accept(command.id ?? "");
    case "shutdown":
      engine.shutdown("quit");
      return undefined;
    default:
      throw new Error(`bus-session: unknown op ${command.op}`);
  }
}

const { id, engine } = startWorkerSession();
listen((line) => {
  const command = JSON.parse(line) as Command;
  const startedMs = performance.now();
  try {
    const answer = act(engine, command);
    const ms = performance.now() - startedMs;
    if (answer === undefined) print({ ev: "result", op: command.op, ok: true, ms });
    else if (answer.isOk()) print({ ev: "result", op: command.op, ok: true, value: answer.value, ms });
    else
      print({
        ev: "result",
        op: command.op,
        ok: false,
        error: answer.error,
        described: describeBusError(answer.error),
        ms,
      });
  } catch (thrown) {
    print({
      ev: "result",
      op: command.op,
      threw: thrown instanceof Error ? (thrown.stack ?? thrown.message) : String(thrown),
    });
  }
});
print({ ev: "ready", id, label: "", pid: process.pid });
