// Issue 9 §3 with real `pi --mode rpc` processes: what a person at the terminal meets. A session
// named with a space is reached by its quoted name; "Sent" to a session that is not running says
// the mail waits; /mailbox alone lists who runs; a refusal reads once; a waiting ask reports whom
// it waits on; a stop that holds a request says so. Two sessions, started once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isObject, type RpcRecord } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import {
  mailboxRequest,
  mailMessages,
  notice,
  notices,
  readBox,
  repliesTo,
  runTimeoutMs,
  startMailSessions,
  startTimeoutMs,
  waitForReply,
} from "./mail-support.js";

const reviewer = { id: "0190d4d4-0000-7000-8000-0000000000d4", name: "code reviewer" };
const bee = { id: "0190d4d4-1111-7000-8000-0000000000b5", name: "bee" };
const closed = "0190d4d4-2222-7000-8000-0000000000c6";

const fileTimeoutMs = startTimeoutMs * 2;

describe("session-mail for a person at the terminal, between real Pi RPC sessions", () => {
  let sandbox: Sandbox;
  let r: PiSession;
  let b: PiSession;
  const alive = () => [r, b];

  /** Types `/mailbox <args>` into `pi` and returns the notice it gives. */
  async function mailbox(pi: PiSession, args: string) {
    const since = pi.mark();
    const response = await pi.request({ type: "prompt", message: `/mailbox ${args}`.trimEnd() });
    expect(response.success).toBe(true);
    const record = await pi.waitFor((rec) => notice(rec) !== undefined, runTimeoutMs, {
      since,
      what: `the notice after /mailbox ${args}`,
    });
    return notice(record);
  }

  beforeAll(async () => {
    sandbox = createSandbox();
    [r, b] = (await startMailSessions(sandbox, [reviewer, bee])) as [PiSession, PiSession];
  }, fileTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, fileTimeoutMs);

  it("/mailbox reaches a name with a space in quotes, and its answer comes back", async () => {
    const id = await mailboxRequest(b, '"code reviewer"', "hello from bee", reviewer.id);
    const reply = await waitForReply(sandbox, bee.id, id, {
      timeoutMs: runTimeoutMs,
      what: "the answer",
      alive: alive(),
    });
    expect(reply.envelope).toMatchObject({ from: reviewer.id, status: "done", body: "echo: hello from bee" });
    await r.waitFor((rec) => rec.type === "agent_settled", runTimeoutMs, { what: "the reviewer settling" });
  });

  it("says that a request to a session that is not running waits in its inbox until that session starts", async () => {
    const shown = await mailbox(b, `${closed} for when you start`);
    expect(shown?.level).toBe("info");
    expect(shown?.message).toMatch(
      new RegExp(
        `^Sent \\S+ to ${closed}\\. That session is not running: the request waits in its inbox until that session starts\\.$`,
      ),
    );
    expect(readBox(sandbox, closed, "new").map((m) => m.envelope.body)).toEqual(["for when you start"]);
  });

  it("/mailbox alone lists the running sessions by name, with their state and directory", async () => {
    const shown = await mailbox(b, "");
    expect(shown?.message.split("\n")).toEqual([
      `Address ${bee.id}, name bee`,
      "Running sessions:",
      `- bee (this session): idle, working in ${b.cwd}`,
      `- code reviewer: idle, working in ${r.cwd}`,
    ]);
  });

  it("shows a refusal once: Pi's TUI opens an error notice with 'Error:' itself", async () => {
    expect(await mailbox(b, "nobody hello")).toEqual({
      level: "error",
      message:
        'No running session is named "nobody", and an id prefix needs at least 8 characters. A closed session is reached by its full id.',
    });
    expect(await mailbox(b, '"code reviewer please')).toMatchObject({ level: "error" });
  });

  it("a waiting ask reports whom it waits on through the tool's partial update", async () => {
    const since = b.mark();
    const ask = JSON.stringify({ to: "code reviewer", message: "what is 6 x 7?" });
    const run = await b.prompt(`CALL_TOOL session_mail_ask ${ask}`, runTimeoutMs);
    expect(run.settled.aborted).toBe(false);
    const updates = b.events
      .slice(since)
      .filter((rec: RpcRecord) => rec.type === "tool_execution_update")
      .map((rec) => (isObject(rec.partialResult) ? rec.partialResult.content : undefined));
    expect(updates[0]).toEqual([{ type: "text", text: "Asked code reviewer; waiting for its answer (up to 10 min)." }]);
    await r.waitFor((rec) => rec.type === "agent_settled", runTimeoutMs, { what: "the reviewer's answering run" });
  });

  it("tells the person who stops a run that read a request that it is held for the next completed run", async () => {
    const sinceR = r.mark();
    const heldId = await mailboxRequest(
      b,
      '"code reviewer"',
      'take your time\nCALL_TOOL slow_tool {"ms":30000}',
      reviewer.id,
    );
    await r.waitFor((rec) => rec.type === "tool_execution_start", runTimeoutMs, {
      since: sinceR,
      what: "the long tool",
    });
    expect(mailMessages(r.events.slice(sinceR)).map((m) => m.mailId)).toContain(heldId);
    expect((await r.request({ type: "abort" })).success).toBe(true);
    const held = await r.waitFor(
      (rec) => notice(rec)?.message.startsWith("The run was stopped") === true,
      runTimeoutMs,
      { since: sinceR, what: "the held notice" },
    );
    expect(notice(held)).toEqual({
      level: "info",
      message: "The run was stopped, so the request from bee is held: the next run that completes answers it.",
    });
    expect(repliesTo(sandbox, bee.id, heldId)).toEqual([]);
    // The next completed run answers it.
    await r.prompt("carry on", runTimeoutMs);
    const reply = await waitForReply(sandbox, bee.id, heldId, {
      timeoutMs: runTimeoutMs,
      what: "the held answer",
      alive: alive(),
    });
    expect(reply.envelope.status).toBe("done");
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [r, b]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((rec) => rec.type === "extension_error")).toEqual([]);
      const loud = notices(pi.events).filter((n) => n.level !== "info");
      expect(loud.map((n) => n.message.slice(0, 20))).toEqual(
        pi === b ? ["No running session i", "The quote before cod"] : [],
      );
    }
  });
});
