// `switchboard` against real `pi --mode rpc` sessions (the scripted model): list, send, sent, and every
// way an ask from a shell ends, each with its exit code; two asks at once; a shell killed while it
// waits; and an ask from a session's own bash tool, which carries that session's hop count.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliBundle, runCli, startCli } from "../cli/cli-process.js";
import { e2ePaths } from "./harness/pi-command.js";
import { type RpcRecord, toolEnd } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import {
  mailbox,
  mailRoot,
  readBox,
  readRunningRecord,
  runTimeoutMs,
  startMailSessions,
  startTimeoutMs,
  waitUntil,
} from "./mail-support.js";

const ant = { id: "0190a1a1-7777-7000-8000-0000000000a1", name: "ant" };
const bee = { id: "0190b2b2-7777-7000-8000-0000000000b2", name: "bee" };
const hopLimit = 1;

interface ListedJson {
  sessions: Array<{
    id: string;
    name: string | null;
    state: string;
    waitingOn: string | null;
    unreadMail: number | null;
  }>;
}

/** The record of the one shell waiting on bee, once its ask is written. */
function waitForShell(sandbox: Sandbox, alive: readonly PiSession[]) {
  return waitUntil(
    () => {
      const rows = runningAddresses(sandbox).filter((id) => id !== ant.id && id !== bee.id);
      const record = rows.length === 1 ? readRunningRecord(sandbox, rows[0]!) : undefined;
      return record?.waitingOn === bee.id ? record : undefined;
    },
    { timeoutMs: runTimeoutMs, what: "the shell's running record, waiting on bee", alive },
  );
}

/** The shell's record names its target before the ask is written (so the deadlock rule sees it at
 * once): the ask is surely in bee's (`alive[1]`) hands once bee has started the turn it woke. */
async function waitForAskTaken(sandbox: Sandbox, alive: readonly [PiSession, PiSession], since: number) {
  const shell = await waitForShell(sandbox, alive);
  await alive[1].waitFor((r: RpcRecord) => r.type === "agent_start", runTimeoutMs, {
    since,
    what: "bee takes the ask",
  });
  return shell;
}

/** The addresses with a running record now. */
const runningAddresses = (sandbox: Sandbox) =>
  readdirSync(join(mailRoot(sandbox), "running"))
    .filter((name) => name.endsWith(".json"))
    .map((name) => name.slice(0, -".json".length))
    .sort();

describe("switchboard against real Pi RPC sessions", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `${JSON.stringify({ hopLimit })}\n`);
    [a, b] = (await startMailSessions(sandbox, [ant, bee])) as [PiSession, PiSession];
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("list shows both sessions, idle, with their ids and folders (text and --json)", async () => {
    const text = await runCli(sandbox, ["list"]);
    expect(text.code).toBe(0);
    expect(text.stderr).toBe("");
    const lines = text.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^NAME\s+ID\s+STATE\s+WAITS ON\s+UNREAD\s+CWD$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 3))).toEqual([
      ["ant", ant.id, "idle"],
      ["bee", bee.id, "idle"],
    ]);
    const json = await runCli(sandbox, ["list", "--json"]);
    const parsed = JSON.parse(json.stdout) as ListedJson;
    expect(parsed.sessions.map((s) => [s.id, s.name, s.state])).toEqual([
      [ant.id, "ant", "idle"],
      [bee.id, "bee", "idle"],
    ]);
    // Every documented key is there, null where nothing applies (no bus, no wait).
    expect(parsed.sessions[0]).toEqual({
      id: ant.id,
      name: "ant",
      label: null,
      cwd: expect.any(String),
      state: "idle",
      waitingOn: null,
      mailMode: "accept",
      unreadMail: 0,
      unreadBus: null,
      bus: null,
    });
  });

  it("ask: the answer on stdout and exit 0; the target's label names the shell", async () => {
    const since = b.mark();
    const asked = await runCli(sandbox, ["ask", "bee", "what is two and two"]);
    expect(asked).toMatchObject({ code: 0, stdout: "echo: what is two and two\n", stderr: "" });
    const settled = await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, {
      since,
      what: "bee settles",
    });
    expect(settled.type).toBe("agent_settled");
    const label = b.events
      .slice(since)
      .find((r) => r.type === "message_end" && JSON.stringify(r).includes("[mailbox] From shell ("));
    expect(label).toBeDefined();
    // The shell's record lived only while it waited.
    expect(runningAddresses(sandbox)).toEqual([ant.id, bee.id]);
  });

  it("ask --json: one object with the outcome, the status and the body", async () => {
    const asked = await runCli(sandbox, ["ask", "ant", "-", "--json"], { stdin: "from stdin\nsecond line" });
    expect(asked.code).toBe(0);
    const parsed = JSON.parse(asked.stdout) as Record<string, unknown>;
    expect(parsed).toMatchObject({ to: ant.id, outcome: "answered", status: "done", body: "echo: from stdin" });
    await a.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { what: "ant settles" });
  });

  it("ask: a failed run exits 4, a stopped run exits 3 (each with the text it has)", async () => {
    const failed = await runCli(sandbox, ["ask", "bee", "FAIL_NOW"]);
    expect(failed.code).toBe(4);
    expect(failed.stderr).toMatch(/not an answer: bee's run failed/);
    const since = b.mark();
    const stopped = startCli(sandbox, ["ask", "bee", "SLEEP 20000\nslow one"]);
    await b.waitFor((r: RpcRecord) => r.type === "agent_start", runTimeoutMs, {
      since,
      what: "bee starts the slow run",
    });
    expect((await b.request({ type: "abort" })).success).toBe(true);
    const result = await stopped.done;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/not an answer: bee's run was stopped/);
    await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since, what: "bee settles" });
  });

  it("ask --timeout: exit 5 when no answer comes in time; the late answer never confuses the next ask", async () => {
    const since = b.mark();
    const late = await runCli(sandbox, ["ask", "bee", "SLEEP 1500\nlate one", "--timeout", "300ms"]);
    expect(late.code).toBe(5);
    expect(late.stderr).toMatch(/no answer from bee within 0s/);
    expect(runningAddresses(sandbox)).toEqual([ant.id, bee.id]);
    await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since, what: "bee answers late" });
    const next = await runCli(sandbox, ["ask", "bee", "the next one"]);
    expect(next).toMatchObject({ code: 0, stdout: "echo: the next one\n" });
  });

  it("two shells asking at once each get their own answer, from two slots of the shell's address", async () => {
    const sinceA = a.mark();
    const sinceB = b.mark();
    const one = startCli(sandbox, ["ask", "bee", "for the first shell\nSLEEP 300", "--json"]);
    const two = startCli(sandbox, ["ask", "ant", "for the second shell\nSLEEP 300", "--json"]);
    const [first, second] = await Promise.all([one.done, two.done]);
    expect([first.code, second.code]).toEqual([0, 0]);
    // Both may pick the first slot at once; the one that finds it taken moves on, warning of nothing.
    expect([first.stderr, second.stderr]).toEqual(["", ""]);
    const [x, y] = [JSON.parse(first.stdout), JSON.parse(second.stdout)] as Array<{ from: string; body: string }>;
    expect([x!.body, y!.body]).toEqual(["echo: for the first shell", "echo: for the second shell"]);
    expect(x!.from).not.toBe(y!.from);
    await a.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since: sinceA, what: "ant settles" });
    await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since: sinceB, what: "bee settles" });
  });

  it("while it waits the shell is listed, busy, waiting on bee; Ctrl-C ends the wait with 130 and its record", async () => {
    const since = b.mark();
    const waiting = startCli(sandbox, ["ask", "bee", "SLEEP 3000\ninterrupted"]);
    const shell = await waitForAskTaken(sandbox, [a, b], since);
    expect(shell).toMatchObject({ name: "shell", state: "busy", waitingOn: bee.id });
    const listed = await runCli(sandbox, ["list"]);
    expect(listed.stdout).toMatch(new RegExp(`\\nshell\\s+${shell.address}\\s+busy\\s+bee\\s`));
    waiting.kill("SIGINT");
    const result = await waiting.done;
    expect(result.code).toBe(130);
    expect(runningAddresses(sandbox)).toEqual([ant.id, bee.id]);
    await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since, what: "bee settles" });
  });

  it("a shell killed while it waits leaves a record judged gone: list omits it, the next ask takes the slot", async () => {
    const since = b.mark();
    const killed = startCli(sandbox, ["ask", "bee", "SLEEP 1000\nkilled"]);
    await waitForAskTaken(sandbox, [a, b], since);
    killed.kill("SIGKILL");
    expect((await killed.done).signal).toBe("SIGKILL");
    const listed = JSON.parse((await runCli(sandbox, ["list", "--json"])).stdout) as ListedJson;
    expect(listed.sessions.map((s) => s.id)).toEqual([ant.id, bee.id]);
    await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, {
      since,
      what: "bee answers the dead shell",
    });
    const next = await runCli(sandbox, ["ask", "bee", "after the kill", "--json"]);
    expect(JSON.parse(next.stdout)).toMatchObject({ outcome: "answered", body: "echo: after the kill" });
  });

  it("send prints the request's id; sent follows it to answered (text and --json)", async () => {
    const since = a.mark();
    const sent = await runCli(sandbox, ["send", "ant", "please tidy up"]);
    expect(sent.code).toBe(0);
    const id = sent.stdout.trim();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await a.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since, what: "ant settles" });
    const listed = JSON.parse((await runCli(sandbox, ["sent", "--json"])).stdout) as {
      sent: Array<{ id: string; state: string; kind: string }>;
    };
    expect(listed.sent.find((s) => s.id === id)).toMatchObject({ kind: "request", state: "answered" });
    const text = await runCli(sandbox, ["sent"]);
    expect(text.stdout).toMatch(
      new RegExp(`\\n${id.slice(0, 8)}\\s+request\\s+ant\\s+(now|\\S+ ago)\\s+answered\\s+please tidy up\\n`),
    );
  });

  it("refusals: a target not running exits 6, one whose person refuses mail exits 7, bad usage exits 2", async () => {
    const closed = await runCli(sandbox, ["ask", "0190c3c3-7777-7000-8000-0000000000c3", "anyone there"]);
    expect(closed.code).toBe(6);
    expect(closed.stderr).toMatch(/is not running, so nobody would answer/);
    await mailbox(a, "refuse");
    const refused = await runCli(sandbox, ["ask", "ant", "let me in"]);
    expect(refused.code).toBe(7);
    expect(refused.stderr).toBe(
      "switchboard: refused: ant takes no mail now (its person typed /mailbox refuse). Nothing was sent.\n",
    );
    await mailbox(a, "accept");
    const usage = await runCli(sandbox, ["ask", "ant", "x", "--timeout", "soon"]);
    expect(usage).toMatchObject({ code: 2, stdout: "" });
    expect(usage.stderr).toMatch(/^switchboard: --timeout "soon" is not a duration/);
  });

  it("from a session's bash tool the shell carries that session's hops and waits: refused at the hop limit and where it would deadlock (exit 7); a request by name carries the count", async () => {
    // ant, typed (0 hops), asks bee; bee's turn is 1 hop in, the limit. Its model runs switchboard
    // in bash, which reads bee's record through PI_SESSION_ID: an ask is refused at the limit, and
    // asking ant, which waits on bee, would deadlock.
    const cli = `${e2ePaths.nodeBin} ${cliBundle(sandbox)}`;
    const command = [
      `out=$(${cli} ask bee hello 2>&1); echo "exit=$? $out"`,
      `out=$(${cli} ask ant hello 2>&1); echo "exit=$? $out"`,
      `out=$(${cli} send ant "from the shell of bee" 2>&1); echo "sent=$?"`,
    ].join("; ");
    const since = b.mark();
    await a.prompt(
      `CALL_TOOL session_mail_ask ${JSON.stringify({ to: "bee", message: `x\nCALL_TOOL bash ${JSON.stringify({ command })}` })}`,
      runTimeoutMs * 2,
    );
    const ended = await b.waitFor((r: RpcRecord) => toolEnd(r)?.toolName === "bash", runTimeoutMs, {
      since,
      what: "bee's bash",
    });
    expect(toolEnd(ended)?.text.split("\n")).toEqual([
      "exit=7 switchboard: refused: the session this runs in is 1 hops into a chain of sessions waking each other, and the limit is 1. Nothing was sent. A person typing in either session starts the count again.",
      "exit=7 switchboard: refused: ant waits on an answer from the session this runs in; asking it would deadlock.",
      "sent=0",
      "",
    ]);
    // A request is never refused when sent, but it carries the count: ant, which gets it, counts it.
    const request = ["new", "cur"]
      .flatMap((box) => readBox(sandbox, ant.id, box as "new" | "cur"))
      .find((m) => m.envelope.body === "from the shell of bee");
    expect(request?.envelope).toMatchObject({ kind: "request", to: ant.id, hops: 1 });
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
    }
  });
});
