// One loop guard for both halves, between real `pi --mode rpc` processes with both extensions: a
// chain that crosses them (a mail ask → a bus event → a mail send) counts one hop per session it
// wakes whichever half carried it, and stops at the one hop limit of session-mail.json.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  gitRepository,
  readInbox,
  runTimeoutMs,
  sessionOk,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { type RpcRecord, toolEnd } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import { readAllMail } from "./mail-support.js";

const ant = { id: "0190a1a1-4444-7000-8000-0000000000a1", folder: "works", name: "ant" };
const bee = { id: "0190b2b2-4444-7000-8000-0000000000b2", folder: "works", name: "bee" };
const cat = { id: "0190c3c3-4444-7000-8000-0000000000c3", folder: "works", name: "cat" };
const hopLimit = 2;
const hopRefusal = `Refused: this turn is ${hopLimit} hops into a chain of sessions waking each other, and the limit is ${hopLimit}. Nothing was sent. A person typing in either session starts the count again.`;

const call = (tool: string, args: object) => `CALL_TOOL ${tool} ${JSON.stringify(args)}`;
const toolEnds = (pi: PiSession, since: number, tool: string) =>
  pi.events
    .slice(since)
    .map(toolEnd)
    .filter((end) => end?.toolName === tool);

describe("one loop guard for both halves, between real Pi RPC sessions", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;
  let c: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `${JSON.stringify({ hopLimit })}\n`);
    gitRepository(sandbox, "works");
    [a, b, c] = (await startBusSessions(sandbox, [ant, bee, cat])) as [PiSession, PiSession, PiSession];
    await sessionOk(b, { action: "join", label: "bee" });
    await sessionOk(c, { action: "join", label: "cat", wake: true });
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("a mail ask → a bus event → a mail send: the send, two hops in, is refused at the limit", async () => {
    const sinceC = c.mark();
    // ant, typed (0 hops), asks bee by mail; bee's turn (1) sends cat a bus event carrying 1; cat
    // wakes (2) and its model's mail to ant is refused: the mailbox counts the bus's hops too.
    const catsMail = call("session_mail_send", { to: "ant", message: "three hops" });
    const beesEvent = call("session", { action: "send", to: "cat", kind: "event", text: catsMail });
    await a.prompt(call("session_mail_ask", { to: "bee", message: `ant asks\n${beesEvent}` }), runTimeoutMs * 2);
    expect(readInbox(busFolder(sandbox), cat.id).map((m) => [m.fromLabel, m.kind, m.hops])).toEqual([
      ["bee", "event", 1],
    ]);
    const refused = await c.waitFor((r: RpcRecord) => toolEnd(r)?.toolName === "session_mail_send", runTimeoutMs, {
      since: sinceC,
      what: "cat's mail to ant",
    });
    expect(toolEnd(refused)).toEqual({ toolName: "session_mail_send", text: hopRefusal, isError: true });
    expect(toolEnds(c, sinceC, "session_mail_send")).toHaveLength(1);
    // Nothing from cat reached ant's mailbox.
    expect(readAllMail(sandbox).filter((m) => m.envelope.from === cat.id)).toEqual([]);
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b, c]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
    }
  });
});
