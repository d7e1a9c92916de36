// The mailbox between real `pi --mode rpc` processes that load this repo as a Pi package:
// /mailbox requests and their automatic replies, the ask round trip through the model's tool
// call, mail steered into a busy run, and renaming a session. Three sessions, started once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assistantOutcomes, isObject, type RpcRecord, toolEnd } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import {
  count,
  describeRoundTrips,
  idleRoundTrips,
  mailboxRequest,
  mailMessages,
  notices,
  readBox,
  readRunningRecord,
  repliesTo,
  runTimeoutMs,
  startMailSessions,
  startTimeoutMs,
  toolDetails,
  waitForMail,
  waitForReply,
  waitUntil,
} from "./mail-support.js";

const ant = { id: "0190a1a1-0000-7000-8000-0000000000a1", name: "ant" };
const bee = { id: "0190b2b2-0000-7000-8000-0000000000b2", name: "bee" };
const cat = { id: "0190c3c3-0000-7000-8000-0000000000c3", name: "cat" };

const fileTimeoutMs = startTimeoutMs * 2;
const mailLabel = /^\[mailbox\] From (\S+) \((\S+), working in ([^)]+)\), another Pi session on this machine\.$/;

describe("session-mail between real Pi RPC sessions: requests, asks, steering, renaming", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;
  let c: PiSession;

  const alive = () => [a, b, c];

  beforeAll(async () => {
    sandbox = createSandbox();
    [a, b, c] = (await startMailSessions(sandbox, [ant, bee, cat])) as [PiSession, PiSession, PiSession];
  }, fileTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, fileTimeoutMs);

  it("each session publishes a running record with its name, cwd, pid and idle state", () => {
    for (const [pi, spec] of [
      [a, ant],
      [b, bee],
      [c, cat],
    ] as const) {
      expect(readRunningRecord(sandbox, spec.id)).toMatchObject({
        address: spec.id,
        name: spec.name,
        cwd: pi.cwd,
        pid: pi.pid,
        state: "idle",
        waitingOn: "",
      });
    }
  });

  it("/mailbox wakes an idle session, and its answer comes back to the sender as a quiet reply", async () => {
    const sinceA = a.mark();
    const sinceB = b.mark();
    const id = await mailboxRequest(a, "bee", "hello from ant", bee.id);

    // The request as written: in bee's inbox (claimed into cur/) and in ant's sent/.
    const claimed = await waitForMail(sandbox, bee.id, "cur", (e) => e.id === id, {
      timeoutMs: runTimeoutMs,
      what: "the request in bee's cur/",
      alive: alive(),
    });
    expect(claimed.envelope).toMatchObject({
      from: ant.id,
      to: bee.id,
      kind: "request",
      hops: 0,
      in_reply_to: [],
      status: "",
      body: "hello from ant",
    });
    expect(readBox(sandbox, ant.id, "sent").map((m) => m.envelope.id)).toContain(id);

    // Bee wakes on its own: a run with the labelled mail, settled, no prompt from us.
    const settled = await b.waitFor((r) => r.type === "agent_settled", runTimeoutMs, { since: sinceB });
    expect(settled.aborted).toBe(false);
    const run = b.events.slice(sinceB);
    expect(count(run, "agent_start")).toBe(1);
    const [mail, ...more] = mailMessages(run);
    expect(more).toEqual([]);
    expect(mail?.mailId).toBe(id);
    expect(mail?.kind).toBe("request");
    const lines = mail?.content.split("\n") ?? [];
    expect(lines[0]).toMatch(mailLabel);
    expect(mailLabel.exec(lines[0] ?? "")?.slice(1, 4)).toEqual(["ant", ant.id, a.cwd]);
    expect(lines[1]).toBe(`It sent you request ${id}. Your final answer this turn goes back to it automatically.`);
    expect(lines.slice(2, 4)).toEqual(["", "hello from ant"]);
    expect(lines.at(-1)).toBe("[mailbox] End of the mail from ant. Text after this line is not part of it.");
    // The mail entered the conversation before the model answered it.
    const mailAt = run.findIndex((r) => mailMessages([r]).length > 0);
    const answerAt = run.findIndex((r) => assistantOutcomes([r]).length > 0);
    expect(mailAt).toBeGreaterThan(run.findIndex((r) => r.type === "agent_start"));
    expect(answerAt).toBeGreaterThan(mailAt);
    expect(assistantOutcomes(run).at(-1)?.text).toBe("echo: hello from ant");

    // The reply: a file in ant's cur/ answering exactly that request.
    const reply = await waitForReply(sandbox, ant.id, id, {
      timeoutMs: runTimeoutMs,
      what: "bee's reply in ant's cur/",
      alive: alive(),
    });
    expect(reply.envelope).toMatchObject({
      from: bee.id,
      to: ant.id,
      kind: "reply",
      in_reply_to: [id],
      status: "done",
      body: "echo: hello from ant",
    });
    expect(repliesTo(sandbox, ant.id, id)).toHaveLength(1);

    // Ant shows it on its stdout as an appended custom message, without starting a turn.
    const shown = await a.waitFor((r) => mailMessages([r]).some((m) => m.mailId === reply.envelope.id), runTimeoutMs, {
      since: sinceA,
      what: "the reply as a custom message_end on ant",
    });
    const content = mailMessages([shown])[0]?.content ?? "";
    expect(content).toMatch(/^\[mailbox\] From bee \(/);
    expect(content).toContain(`This is its reply, status done, to your request ${id}.`);
    expect(content).toContain("\necho: hello from ant\n");
    const copyPath = readBox(sandbox, ant.id, "sent").find((m) => m.envelope.id === id)?.path;
    expect(content).toContain(`- request ${id} (sent copy at ${copyPath}): hello from ant`);
    expect(count(a.events.slice(sinceA), "agent_start")).toBe(0);
    expect(count(a.events.slice(sinceA), "message_start")).toBe(1);
  });

  it("measures the idle round trip: /mailbox on ant -> reply file in ant's cur/", async () => {
    const times = await idleRoundTrips(sandbox, a, b, "bee", 5);
    console.log(describeRoundTrips("mail-basics", times));
    expect(times).toHaveLength(5);
  });

  it("session_mail_ask from the model's tool call waits on the answer and returns it as the tool result", async () => {
    const sinceB = b.mark();
    const sinceC = c.mark();
    // SLEEP keeps bee's model busy long enough to see cat waiting; the echo is the first body line.
    const args = JSON.stringify({ to: "bee", message: "what is 6*7?\nSLEEP 800" });
    const response = await c.request({ type: "prompt", message: `CALL_TOOL session_mail_ask ${args}` });
    expect(response.success).toBe(true);

    // While bee works on it, cat's record says whom it waits on and bee is busy.
    const asked = await b.waitFor((r) => mailMessages([r]).some((m) => m.kind === "ask"), runTimeoutMs, {
      since: sinceB,
      what: "the ask entering bee's conversation",
    });
    const askId = mailMessages([asked])[0]?.mailId ?? "";
    expect(mailMessages([asked])[0]?.content).toContain(
      `It is waiting for your answer to ask ${askId}. Answer with session_mail_reply (ask "${askId}")`,
    );
    // cat's record names bee before the ask is published, so it does by the time bee shows it.
    expect(readRunningRecord(sandbox, cat.id)).toMatchObject({ waitingOn: bee.id, state: "busy" });
    expect(readRunningRecord(sandbox, bee.id)).toMatchObject({ state: "busy", waitingOn: "" });

    const settled = await c.waitFor((r) => r.type === "agent_settled", runTimeoutMs, {
      since: sinceC,
      what: "cat's run settling after the ask",
    });
    expect(settled.aborted).toBe(false);
    const run = c.events.slice(sinceC);
    const ends = run.filter((r) => r.type === "tool_execution_end");
    expect(ends.map(toolEnd)).toEqual([
      { toolName: "session_mail_ask", text: "Answer from bee:\n\necho: what is 6*7?", isError: false },
    ]);
    expect(assistantOutcomes(run).at(-1)?.text).toBe("tool said: Answer from bee:\n\necho: what is 6*7?");
    // The answer became the tool result: it was not also injected as mail.
    expect(mailMessages(run)).toEqual([]);

    // On disk: the ask in cat's sent/, the reply claimed into cat's cur/, the wait cleared.
    const sentAsk = readBox(sandbox, cat.id, "sent").find((m) => m.envelope.id === askId);
    expect(sentAsk?.envelope).toMatchObject({ kind: "ask", from: cat.id, to: bee.id, hops: 0 });
    const reply = await waitForReply(sandbox, cat.id, askId, {
      timeoutMs: runTimeoutMs,
      what: "bee's answer in cat's cur/",
      alive: alive(),
    });
    expect(reply.envelope).toMatchObject({ kind: "reply", status: "done", body: "echo: what is 6*7?" });
    // The result names the answer, so a restart finds it shown (it is never injected a second time).
    expect(toolDetails(ends[0] as RpcRecord)).toEqual({
      id: askId,
      to: bee.id,
      name: "bee",
      outcome: "answered",
      answer: reply.envelope.id,
      summary: "bee answered: echo: what is 6*7?",
    });
    expect(readRunningRecord(sandbox, cat.id)).toMatchObject({ waitingOn: "", state: "idle" });
    // Bee writes the answer inside Pi's agent_settled handlers and Pi prints the record only after
    // them, so cat can finish first: wait for it, or it lands in the next test's slice of bee.
    const beeSettled = await b.waitFor((r) => r.type === "agent_settled", runTimeoutMs, {
      since: sinceB,
      what: "bee's run answering the ask settling",
    });
    expect(beeSettled.aborted).toBe(false);
    expect(count(b.events.slice(sinceB), "agent_start")).toBe(1);
  });

  it("mail reaching a busy session is steered in at the end of its tool call, within the same run", async () => {
    const sinceB = b.mark();
    const prompt = await b.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":2000}' });
    expect(prompt.success).toBe(true);
    const started = await b.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, {
      since: sinceB,
      what: "slow_tool start",
    });
    expect(readRunningRecord(sandbox, bee.id)?.state).toBe("busy");

    const id = await mailboxRequest(a, "bee", "steered in", bee.id);
    // The settle of the run that runs the tool; a stray earlier one still fails the count below.
    const settled = await b.waitFor((r) => r.type === "agent_settled", runTimeoutMs, {
      since: b.events.indexOf(started, sinceB),
      what: "bee's run settling",
    });
    expect(settled.aborted).toBe(false);
    const run = b.events.slice(sinceB);
    expect(count(run, "agent_start")).toBe(1);
    expect(count(run, "agent_settled")).toBe(1);
    const toolStart = run.findIndex((r) => r.type === "tool_execution_start");
    const mailAt = run.findIndex((r) => mailMessages([r]).some((m) => m.mailId === id));
    const outcomes = assistantOutcomes(run);
    // The tool ran to its end; the mail entered after it started, and the model's second call answered it.
    expect(run.map(toolEnd).filter((t) => t !== undefined)).toEqual([
      { toolName: "slow_tool", text: "slept 2000", isError: false },
    ]);
    expect(mailAt).toBeGreaterThan(toolStart);
    expect(outcomes.map((o) => o.stopReason)).toEqual(["toolUse", "stop"]);
    expect(outcomes.at(-1)?.text).toBe("echo: steered in");
    const lastAssistant = run.findLastIndex((r) => assistantOutcomes([r]).length > 0);
    expect(lastAssistant).toBeGreaterThan(mailAt);

    const reply = await waitForReply(sandbox, ant.id, id, {
      timeoutMs: runTimeoutMs,
      what: "the answer to the steered request",
      alive: alive(),
    });
    expect(reply.envelope).toMatchObject({ status: "done", body: "echo: steered in", in_reply_to: [id] });
    // Bee's run began with a person's prompt (count 0), and the request (0 hops) that steered into
    // it afterwards raised the count to 1: typing once does not reset the loop guard for the run.
    expect(reply.envelope.hops).toBe(1);
  });

  it("after set_session_name the running record carries the new name, and mail reaches it by that name", async () => {
    const renamed = await b.request({ type: "set_session_name", name: "bumble" });
    expect(renamed.success).toBe(true);
    await waitUntil(() => (readRunningRecord(sandbox, bee.id)?.name === "bumble" ? true : undefined), {
      timeoutMs: runTimeoutMs,
      what: "bee's running record named bumble",
      alive: alive(),
    });
    const state = await b.request({ type: "get_state" });
    expect(isObject(state.data) ? state.data.sessionName : undefined).toBe("bumble");

    // The old name no longer resolves.
    const sinceA = a.mark();
    const refused = await a.request({ type: "prompt", message: "/mailbox bee are you there?" });
    expect(refused.success).toBe(true);
    const refusal = await a.waitFor((r) => notices([r]).length > 0, runTimeoutMs, { since: sinceA });
    expect(notices([refusal])).toEqual([
      {
        level: "error",
        message:
          'No running session is named "bee", and an id prefix needs at least 8 characters. A closed session is reached by its full id.',
      },
    ]);

    const sinceB = b.mark();
    const id = await mailboxRequest(a, "bumble", "hello bumble", bee.id);
    const reply = await waitForReply(sandbox, ant.id, id, {
      timeoutMs: runTimeoutMs,
      what: "bumble's reply",
      alive: alive(),
    });
    expect(reply.envelope).toMatchObject({ from: bee.id, status: "done", body: "echo: hello bumble" });
    const mail = mailMessages(b.events.slice(sinceB)).find((m) => m.mailId === id);
    expect(mail?.content).toContain("\nhello bumble\n");
    // The reply is written before Pi prints bee's agent_settled: leave bee settled for what follows.
    const settled = await b.waitFor((r) => r.type === "agent_settled", runTimeoutMs, {
      since: sinceB,
      what: "bumble's run settling",
    });
    expect(settled.aborted).toBe(false);
    // Ant's label on the reply names the sender by its new name.
    const shown = await a.waitFor((r) => mailMessages([r]).some((m) => m.mailId === reply.envelope.id), runTimeoutMs, {
      since: sinceA,
      what: "bumble's reply shown on ant",
    });
    expect(mailMessages([shown])[0]?.content).toMatch(/^\[mailbox\] From bumble \(/);
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b, c]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
      // The only warning or error notice was the refusal asserted above.
      const loud = notices(pi.events).filter((n) => n.level !== "info");
      expect(loud.filter((n) => !n.message.startsWith('No running session is named "bee"'))).toEqual([]);
    }
  });
});
