// Sessions coming and going, with real `pi --mode rpc` processes: the running record a session
// publishes and removes at shutdown (stdin EOF, SIGTERM), and mail to a closed session, which
// waits in its inbox until a process with the same session id starts and answers it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantOutcomes, type RpcRecord, toolEnd } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import {
  count,
  describeRoundTrips,
  exitWithin,
  idleRoundTrips,
  mailboxRequest,
  mailMessages,
  notices,
  readBox,
  readRunningRecord,
  runTimeoutMs,
  startMailSession,
  startMailSessions,
  startTimeoutMs,
  toolDetails,
  waitForReply,
} from "./mail-support.js";

const ant = { id: "0190a1a1-2222-7000-8000-0000000000a1", name: "ant" };
const bee = { id: "0190b2b2-2222-7000-8000-0000000000b2", name: "bee" };

const fileTimeoutMs = startTimeoutMs * 2;
const closeTimeoutMs = 10_000;

describe("session-mail between real Pi RPC sessions: shutdown, and mail for a closed session", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;
  /** Bee again, started with the same --session-id after it closed. */
  let resumed: PiSession | undefined;

  const sessions = () => [a, b, ...(resumed === undefined ? [] : [resumed])];

  beforeAll(async () => {
    sandbox = createSandbox();
    [a, b] = (await startMailSessions(sandbox, [ant, bee])) as [PiSession, PiSession];
  }, fileTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, fileTimeoutMs);

  it("measures the idle round trip: /mailbox on ant -> reply file in ant's cur/", async () => {
    const times = await idleRoundTrips(sandbox, a, b, "bee", 3);
    console.log(describeRoundTrips("mail-lifecycle", times));
    expect(times).toHaveLength(3);
  });

  it("stdin EOF ends a session with code 0 and removes its running record", async () => {
    expect(readRunningRecord(sandbox, bee.id)).toMatchObject({ address: bee.id, pid: b.pid, state: "idle" });
    expect(await b.close(closeTimeoutMs)).toEqual({ code: 0, signal: null });
    expect(readRunningRecord(sandbox, bee.id)).toBeUndefined();

    // Ant no longer lists it, nor resolves its name.
    const list = await a.prompt("CALL_TOOL session_mail_list {}", runTimeoutMs);
    const listed = list.records.map(toolEnd).filter((t) => t !== undefined);
    expect(listed).toHaveLength(1);
    expect(listed[0]?.isError).toBe(false);
    expect(listed[0]?.text).toBe(`- ant ${ant.id} (this session): busy, working in ${a.cwd}`);
  });

  it("mail to a closed session waits in its inbox, and is delivered and answered when it resumes", async () => {
    // A message from ant's model: the tool result says it waits.
    const note = JSON.stringify({ to: bee.id, message: "a note for when you are back" });
    const sent = await a.prompt(`CALL_TOOL session_mail_send ${note}`, runTimeoutMs);
    const sendEnd = sent.records.filter((r) => r.type === "tool_execution_end");
    const noteId = String(toolDetails(sendEnd[0] as RpcRecord).id);
    expect(sendEnd.map(toolEnd)).toEqual([
      {
        toolName: "session_mail_send",
        text: `Sent message ${noteId} to ${bee.id} (${bee.id}). That session is not running: the message waits in its inbox until it starts again.`,
        isError: false,
      },
    ]);
    // A request typed with /mailbox, by full id (a name only resolves for a running session).
    const requestId = await mailboxRequest(a, bee.id, "answer this when you are back", bee.id);

    const waiting = readBox(sandbox, bee.id, "new").map((m) => m.envelope);
    expect(waiting.map((e) => [e.id, e.kind, e.from, e.hops])).toEqual([
      [noteId, "message", ant.id, 0],
      [requestId, "request", ant.id, 0],
    ]);

    resumed = await startMailSession(sandbox, bee);
    const pi = resumed;
    const settled = await pi.waitFor((r) => r.type === "agent_settled", runTimeoutMs, {
      what: "the resumed bee's run on its waiting mail",
    });
    expect(settled.aborted).toBe(false);
    const reply = await waitForReply(sandbox, ant.id, requestId, {
      timeoutMs: runTimeoutMs,
      what: "the resumed bee's answer",
      alive: [a, pi],
    });
    // Both mails entered one run, in the order they were sent; the request is answered with its final text.
    const run = pi.events.slice(0, pi.events.indexOf(settled) + 1);
    expect(mailMessages(run).map((m) => [m.mailId, m.kind])).toEqual([
      [noteId, "message"],
      [requestId, "request"],
    ]);
    expect(count(run, "agent_start")).toBe(1);
    expect(assistantOutcomes(run).at(-1)?.text).toBe("echo: answer this when you are back");
    expect(reply.envelope).toMatchObject({
      from: bee.id,
      to: ant.id,
      kind: "reply",
      in_reply_to: [requestId],
      status: "done",
      body: "echo: answer this when you are back",
    });
    // Claimed exactly once; the message is never answered.
    expect(readBox(sandbox, bee.id, "new")).toEqual([]);
    expect(
      readBox(sandbox, bee.id, "cur")
        .map((m) => m.envelope.id)
        .filter((id) => id === noteId || id === requestId),
    ).toEqual([noteId, requestId]);
    const answersToNote = [...readBox(sandbox, ant.id, "new"), ...readBox(sandbox, ant.id, "cur")].filter((m) =>
      m.envelope.in_reply_to.includes(noteId),
    );
    expect(answersToNote).toEqual([]);
    expect(readRunningRecord(sandbox, bee.id)).toMatchObject({ pid: pi.pid, name: "bee", state: "idle" });
  });

  it("SIGTERM ends a busy session and removes its running record", async () => {
    const pi = resumed;
    if (pi === undefined) throw new Error("the resumed bee did not start");
    const since = pi.mark();
    expect((await pi.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":30000}' })).success).toBe(true);
    await pi.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, { since, what: "slow_tool start" });
    expect(readRunningRecord(sandbox, bee.id)).toMatchObject({ pid: pi.pid, state: "busy" });
    pi.kill("SIGTERM");
    const status = await exitWithin(pi, closeTimeoutMs);
    expect(status.code === 143 || status.signal === "SIGTERM").toBe(true);
    expect(readRunningRecord(sandbox, bee.id)).toBeUndefined();
    // Ant's own record is untouched.
    expect(readRunningRecord(sandbox, ant.id)).toMatchObject({ pid: a.pid, state: "idle" });
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of sessions()) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
      expect(notices(pi.events).filter((n) => n.level !== "info")).toEqual([]);
    }
  });
});
