// How a run's ending decides the answer, between real `pi --mode rpc` processes: the user stopping
// a busy run (ask answered stopped at once, request held), a failed run, the next completed run
// answering the held request, and the hop limit stopping a chain of three sessions.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
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
  readAllMail,
  readBox,
  readRunningRecord,
  repliesTo,
  runTimeoutMs,
  startMailSessions,
  startTimeoutMs,
  toolDetails,
  waitForReply,
  waitUntil,
} from "./mail-support.js";

const ant = { id: "0190a1a1-1111-7000-8000-0000000000a1", name: "ant" };
const bee = { id: "0190b2b2-1111-7000-8000-0000000000b2", name: "bee" };
const cat = { id: "0190c3c3-1111-7000-8000-0000000000c3", name: "cat" };

const fileTimeoutMs = startTimeoutMs * 2;
const hopLimit = 2;
const tookOver =
  "(The user stopped an earlier run partway and took over; the answer that follows is from the run that completed after that.)";
const hopRefusal = `Refused: this turn is ${hopLimit} hops into a chain of sessions waking each other, and the limit is ${hopLimit}. Nothing was sent. A person typing in either session starts the count again.`;

const settledSince = (pi: PiSession, since: number, what: string) =>
  pi.waitFor((r) => r.type === "agent_settled", runTimeoutMs, { since, what });

describe("session-mail between real Pi RPC sessions: stopped and failed runs, the hop limit", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;
  let c: PiSession;
  /** The request bee's stopped run read: held until a run completes. */
  let heldId = "";

  const alive = () => [a, b, c];

  beforeAll(async () => {
    sandbox = createSandbox();
    // Read at session start and at every send; written before any session exists.
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `${JSON.stringify({ hopLimit })}\n`);
    [a, b, c] = (await startMailSessions(sandbox, [ant, bee, cat])) as [PiSession, PiSession, PiSession];
  }, fileTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, fileTimeoutMs);

  it("measures the idle round trip: /mailbox on ant -> reply file in ant's cur/", async () => {
    const times = await idleRoundTrips(sandbox, a, b, "bee", 3);
    console.log(describeRoundTrips("mail-runs", times));
    expect(times).toHaveLength(3);
  });

  it("the user stopping a busy run answers the ask it read stopped at once and holds the request it read", async () => {
    const sinceB = b.mark();
    const sinceC = c.mark();
    // Bee works in a tool when a request and an ask reach it. Pi's default steering mode lets one
    // queued mail in at each gap after a tool call: the request enters after this tool, its body
    // makes the model call another short tool, the ask enters after that one, and its body starts
    // a long tool call, which the user stops with both mails read.
    expect((await b.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":1500}' })).success).toBe(true);
    await b.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, { since: sinceB, what: "slow_tool start" });
    heldId = await mailboxRequest(a, "bee", 'please finish the report\nCALL_TOOL slow_tool {"ms":1000}', bee.id);
    const ask = JSON.stringify({ to: "bee", message: 'are you done yet?\nCALL_TOOL slow_tool {"ms":30000}' });
    expect((await c.request({ type: "prompt", message: `CALL_TOOL session_mail_ask ${ask}` })).success).toBe(true);

    const longTool = (r: RpcRecord) => r.type === "tool_execution_start" && isObject(r.args) && r.args.ms === 30000;
    await b.waitFor(longTool, runTimeoutMs, { since: sinceB, what: "the long slow_tool the ask started" });
    const entered = mailMessages(b.events.slice(sinceB));
    expect(entered.map((m) => m.kind)).toEqual(["request", "ask"]);
    expect(entered[0]?.mailId).toBe(heldId);
    const askId = entered[1]?.mailId ?? "";
    expect(readRunningRecord(sandbox, cat.id)).toMatchObject({ waitingOn: bee.id, state: "busy" });
    // Both were read within this one run: it has not settled yet.
    expect(count(b.events.slice(sinceB), "agent_settled")).toBe(0);

    const stoppedAt = performance.now();
    expect((await b.request({ type: "abort" })).success).toBe(true);
    const settled = await settledSince(b, sinceB, "bee's stopped run");
    expect(settled.aborted).toBe(true);
    expect(
      b.events
        .slice(sinceB)
        .map(toolEnd)
        .filter((t) => t !== undefined),
    ).toEqual([
      { toolName: "slow_tool", text: "slept 1500", isError: false },
      { toolName: "slow_tool", text: "slept 1000", isError: false },
      { toolName: "slow_tool", text: "slow_tool aborted", isError: true },
    ]);

    // The ask: answered stopped at once, and cat's tool returns that as "not an answer".
    const stopped = await waitForReply(sandbox, cat.id, askId, {
      timeoutMs: runTimeoutMs,
      what: "the stopped answer to cat's ask",
      alive: alive(),
    });
    expect(performance.now() - stoppedAt).toBeLessThan(5_000);
    expect(stopped.envelope).toMatchObject({ from: bee.id, kind: "reply", status: "stopped", in_reply_to: [askId] });
    expect(stopped.envelope.body).toBe(
      "(The user stopped this run before it finished; this is not an answer.) It wrote no text before the stop.",
    );
    await settledSince(c, sinceC, "cat's run after the stopped answer");
    const askEnd = c.events
      .slice(sinceC)
      .filter((r) => r.type === "tool_execution_end")
      .map(toolEnd);
    expect(askEnd).toEqual([
      {
        toolName: "session_mail_ask",
        text: `Not an answer (status stopped) from bee:\n\n${stopped.envelope.body}`,
        // An answer arrived, so the call itself succeeded; the text labels it as not an answer.
        isError: false,
      },
    ]);
    expect(readRunningRecord(sandbox, cat.id)?.waitingOn).toBe("");

    // The request: held. Bee has settled, so any answer would be written by now; ant has none.
    expect(repliesTo(sandbox, ant.id, heldId)).toEqual([]);
    expect(readRunningRecord(sandbox, bee.id)).toMatchObject({ state: "idle" });
  });

  it("a run that fails answers its request failed, and a held request stays held", async () => {
    expect(heldId).not.toBe("");
    const sinceB = b.mark();
    const id = await mailboxRequest(a, "bee", "FAIL_NOW", bee.id);
    const failed = await waitForReply(sandbox, ant.id, id, {
      timeoutMs: runTimeoutMs,
      what: "the failed reply",
      alive: alive(),
    });
    expect(failed.envelope).toMatchObject({ from: bee.id, status: "failed", in_reply_to: [id] });
    expect(failed.envelope.body).toBe("(The run ended on an error and did not finish the job: scripted failure)");
    const settled = await settledSince(b, sinceB, "bee's failed run");
    expect(settled.aborted).toBe(false);
    expect(assistantOutcomes(b.events.slice(sinceB)).at(-1)).toMatchObject({
      stopReason: "error",
      errorMessage: "scripted failure",
    });
    expect(repliesTo(sandbox, ant.id, heldId)).toEqual([]);
  });

  it("the next completed run answers the held request done, saying the user took over", async () => {
    expect(heldId).not.toBe("");
    const run = await b.prompt("continue", runTimeoutMs);
    expect(run.settled.aborted).toBe(false);
    expect(assistantOutcomes(run.records).at(-1)?.text).toBe("echo: continue");
    const reply = await waitForReply(sandbox, ant.id, heldId, {
      timeoutMs: runTimeoutMs,
      what: "the answer to the held request",
      alive: alive(),
    });
    expect(reply.envelope).toMatchObject({ from: bee.id, status: "done", in_reply_to: [heldId] });
    expect(reply.envelope.body).toBe(`${tookOver}\n\necho: continue`);
    expect(repliesTo(sandbox, ant.id, heldId)).toHaveLength(1);
  });

  it("a stop before the mail entered (clear_queue + abort, as Pi's Esc does) answers request and ask failed", async () => {
    const sinceA = a.mark();
    const sinceB = b.mark();
    const sinceC = c.mark();
    expect((await b.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":30000}' })).success).toBe(true);
    await b.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, { since: sinceB, what: "slow_tool start" });
    const requestId = await mailboxRequest(a, "bee", "never read", bee.id);
    const ask = JSON.stringify({ to: "bee", message: "never read either" });
    expect((await c.request({ type: "prompt", message: `CALL_TOOL session_mail_ask ${ask}` })).success).toBe(true);
    // Both claimed into bee's cur/, so both were injected and wait in Pi's steering queue.
    const askId = await waitUntil(
      () => {
        const claimed = readBox(sandbox, bee.id, "cur").map((m) => m.envelope);
        const asked = claimed.find((e) => e.kind === "ask" && e.body === "never read either");
        return claimed.some((e) => e.id === requestId) ? asked?.id : undefined;
      },
      { timeoutMs: runTimeoutMs, what: "the request and the ask in bee's cur/", alive: alive() },
    );
    await waitUntil(() => (readRunningRecord(sandbox, cat.id)?.waitingOn === bee.id ? true : undefined), {
      timeoutMs: runTimeoutMs,
      what: "cat waiting on bee",
      alive: alive(),
    });

    expect((await b.request({ type: "clear_queue" })).success).toBe(true);
    expect((await b.request({ type: "abort" })).success).toBe(true);
    expect((await settledSince(b, sinceB, "bee's stopped run")).aborted).toBe(true);
    expect(mailMessages(b.events.slice(sinceB))).toEqual([]);

    const failedRequest = await waitForReply(sandbox, ant.id, requestId, {
      timeoutMs: runTimeoutMs,
      what: "the failed answer to the unread request",
      alive: alive(),
    });
    expect(failedRequest.envelope).toMatchObject({ status: "failed", in_reply_to: [requestId] });
    expect(failedRequest.envelope.body).toBe(
      "(The session was stopped before it read this request; nothing was done.)",
    );
    await settledSince(c, sinceC, "cat's run after the failed answer");
    expect(
      c.events
        .slice(sinceC)
        .map(toolEnd)
        .filter((t) => t !== undefined),
    ).toEqual([
      {
        toolName: "session_mail_ask",
        text: "Not an answer (status failed) from bee:\n\n(The session was stopped before it read this ask; nothing was done.)",
        isError: false,
      },
    ]);
    expect(repliesTo(sandbox, cat.id, askId).map((m) => m.envelope.status)).toEqual(["failed"]);

    // The dropped mail does not come back in bee's next run, and is answered only once.
    const next = await b.prompt("after the stop", runTimeoutMs);
    expect(mailMessages(next.records)).toEqual([]);
    expect(assistantOutcomes(next.records).at(-1)?.text).toBe("echo: after the stop");
    expect(repliesTo(sandbox, ant.id, requestId)).toHaveLength(1);
    expect(count(a.events.slice(sinceA), "agent_start")).toBe(0);
  });

  it("a chain of sessions forwarding mail is refused at the hop limit", async () => {
    // ant (typed: 0 hops) -> bee (1) -> cat (2): cat's forward to ant is refused.
    const toAnt = JSON.stringify({ to: "ant", message: "hop three" });
    const toCat = JSON.stringify({ to: "cat", message: `hop two\nCALL_TOOL session_mail_send ${toAnt}` });
    const toBee = JSON.stringify({ to: "bee", message: `hop one\nCALL_TOOL session_mail_send ${toCat}` });
    const sinceA = a.mark();
    const sinceB = b.mark();
    const sinceC = c.mark();
    const first = await a.prompt(`CALL_TOOL session_mail_send ${toBee}`, runTimeoutMs);
    const sentByA = first.records.filter((r) => r.type === "tool_execution_end");
    expect(sentByA.map(toolEnd).map((t) => [t?.toolName, t?.isError])).toEqual([["session_mail_send", false]]);
    expect(toolEnd(sentByA[0] as RpcRecord)?.text).toMatch(/^Sent message \S+ to bee \(.*\)\. It is delivered now\.$/);
    const hopOne = String(toolDetails(sentByA[0] as RpcRecord).id);

    await settledSince(b, sinceB, "bee's forwarding run");
    const atCat = await settledSince(c, sinceC, "cat's refused forward");
    expect(atCat.aborted).toBe(false);
    const beeEnds = b.events.slice(sinceB).filter((r) => r.type === "tool_execution_end");
    expect(beeEnds.map(toolEnd).map((t) => [t?.toolName, t?.isError])).toEqual([["session_mail_send", false]]);
    const hopTwo = String(toolDetails(beeEnds[0] as RpcRecord).id);
    const catEnds = c.events.slice(sinceC).filter((r) => r.type === "tool_execution_end");
    expect(catEnds.map(toolEnd)).toEqual([{ toolName: "session_mail_send", text: hopRefusal, isError: true }]);
    expect(mailMessages(c.events.slice(sinceC)).map((m) => m.mailId)).toEqual([hopTwo]);

    // On disk: two messages with hops 0 and 1, nothing with hops >= 2, and no answers to messages.
    const messages = readAllMail(sandbox).filter((m) => m.envelope.kind === "message");
    const byId = new Map(messages.map((m) => [m.envelope.id, m.envelope]));
    expect([...byId.keys()].sort()).toEqual([hopOne, hopTwo].sort());
    expect(byId.get(hopOne)).toMatchObject({ from: ant.id, to: bee.id, hops: 0 });
    expect(byId.get(hopTwo)).toMatchObject({ from: bee.id, to: cat.id, hops: 1 });
    expect(messages.filter((m) => m.envelope.hops >= hopLimit)).toEqual([]);
    const answers = readAllMail(sandbox).filter(
      (m) => m.envelope.in_reply_to.includes(hopOne) || m.envelope.in_reply_to.includes(hopTwo),
    );
    expect(answers).toEqual([]);
    // Ant never woke: its refused hop three was never written.
    expect(count(a.events.slice(sinceA), "agent_start")).toBe(1);
    expect(readBox(sandbox, ant.id, "new")).toEqual([]);
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b, c]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
      expect(notices(pi.events).filter((n) => n.level !== "info")).toEqual([]);
    }
  });

  it("every envelope was claimed: nothing is left waiting in any new/", () => {
    for (const spec of [ant, bee, cat]) expect(readBox(sandbox, spec.id, "new")).toEqual([]);
  });
});
