// Listening between real `pi --mode rpc` processes: a session joined with wake is woken by mail
// (a run with no prompt, its notice a session-bus custom message); mail that arrives mid-run is
// raised once after the run settles and never pushed into it; a run the user aborted raises
// nothing and the mail goes with the next prompt; a plain join reports at the next prompt, once;
// listen:false reports nothing. Four sessions on one repository, started once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  busNotices,
  callSession,
  countType,
  gitRepository,
  quietFor,
  readInbox,
  recordOf,
  runTimeoutMs,
  sessionOk,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { assistantOutcomes, isObject, type RpcRecord } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import { waitUntil } from "./mail-support.js";

const sender = { id: "0190d0d0-0000-7000-8000-00000000d001", folder: "works" };
const waker = { id: "0190e0e0-0000-7000-8000-00000000e002", folder: "works" };
const nexter = { id: "0190f0f0-0000-7000-8000-00000000f003", folder: "works" };
const deaf = { id: "01901010-0000-7000-8000-000000001004", folder: "works" };

/** Longer than the watch's 2 s poll: a wake that was going to come has come by then. */
const quietMs = 2_600;

const isSettled = (r: RpcRecord) => r.type === "agent_settled";
const hasUserPrompt = (records: readonly RpcRecord[]) =>
  records.some((r) => r.type === "message_end" && isObject(r.message) && r.message.role === "user");

describe("listening for bus mail between real Pi RPC sessions: wake, mid-run, aborted, next turn", () => {
  let sandbox: Sandbox;
  let s: PiSession;
  let w: PiSession;
  let n: PiSession;
  let d: PiSession;
  let bus: string;

  beforeAll(async () => {
    sandbox = createSandbox();
    gitRepository(sandbox, "works");
    [s, w, n, d] = (await startBusSessions(sandbox, [sender, waker, nexter, deaf])) as [
      PiSession,
      PiSession,
      PiSession,
      PiSession,
    ];
    await sessionOk(s, { action: "join", label: "sender", listen: false });
    bus = busFolder(sandbox);
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  /** `sender` sends; resolves with the message id the bus wrote. */
  const send = async (to: string, text: string, kind = "message") => {
    const sent = await callSession(s, { action: "send", to, text, kind });
    const id = (sent.details.result as { messageId?: string } | undefined)?.messageId;
    if (sent.isError || id === undefined) throw new Error(`no message id in "${sent.text}"`);
    return id;
  };
  /** The records from `since` up to the n-th `agent_settled` after it (1-based). */
  const untilSettled = async (pi: PiSession, since: number, nth: number, what: string) => {
    let at = since;
    for (let i = 0; i < nth; i++) {
      const settled = await pi.waitFor(isSettled, runTimeoutMs, { since: at, what: `${what} (settle ${i + 1})` });
      at = pi.events.indexOf(settled, at) + 1;
    }
    return pi.events.slice(since, at);
  };

  it("join with wake: a message raises one turn with no prompt, its notice a session-bus custom message that consumes nothing", async () => {
    expect(await sessionOk(w, { action: "join", label: "waker", wake: true })).toBe(
      `On the bus as waker (${waker.id.slice(0, 8)}); wake: new mail raises a turn as soon as this session is idle. Pi's session name is now waker. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    expect(recordOf(bus, waker.id)).toMatchObject({ label: "waker", armed: true, wake: true });

    const since = w.mark();
    const id = await send("waker", "ping from sender");
    const run = await untilSettled(w, since, 1, "the woken run");
    expect(countType(run, "agent_start")).toBe(1);
    expect(hasUserPrompt(run)).toBe(false);
    const notices = busNotices(run);
    expect(notices).toEqual([
      {
        content: `[session-bus] 1 new message on the bus.\nmessage from sender (${sender.id.slice(0, 8)})\n  ping from sender\nRead them with session({action:"inbox"}) when they matter to your work; this notice consumed nothing.`,
        delivery: "wake",
        ids: [id],
        headline: "1 new message on the bus",
      },
    ]);
    // The notice entered the run before the model answered it.
    expect(assistantOutcomes(run).map((o) => o.text)).toEqual(["echo: [session-bus] 1 new message on the bus."]);
    expect(run.find(isSettled)?.aborted).toBe(false);
    expect(readInbox(bus, waker.id).map((m) => m.id)).toEqual([id]);
    expect(await sessionOk(w, { action: "inbox" })).toBe(
      `message from sender (${sender.id.slice(0, 8)})\n  ping from sender`,
    );
  });

  it("a handoff wakes the session headlined as the work it assigns, and the woken model reads it with inbox", async () => {
    const since = w.mark();
    const text = 'Take over src/api.\nCALL_TOOL session {"action":"inbox"}';
    const id = await send("waker", text, "handoff");
    const run = await untilSettled(w, since, 1, "the run the handoff raised");
    const [notice, ...more] = busNotices(run);
    expect(more).toEqual([]);
    expect(notice?.headline).toBe("1 handoff on the bus");
    expect(notice?.ids).toEqual([id]);
    expect(notice?.content.split("\n").at(-1)).toBe(
      'A handoff assigns work, and the work is yours: read it with session({action:"inbox"}), record the plan, and start.',
    );
    const inboxEnd = run.find((r) => r.type === "tool_execution_end" && r.toolName === "session");
    expect(inboxEnd?.isError).toBe(false);
    expect(assistantOutcomes(run).at(-1)?.text).toBe(
      `tool said: handoff from sender (${sender.id.slice(0, 8)})\n  Take over src/api.\n  CALL_TOOL session {"action":"inbox"}`,
    );
    expect(readInbox(bus, waker.id)).toEqual([]);
  });

  it("mail arriving mid-run is raised once after agent_settled, one turn for the burst, never pushed into the running run", async () => {
    const since = w.mark();
    expect((await w.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":2500}' })).success).toBe(true);
    await w.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, { since, what: "slow_tool start" });
    const first = await send("waker", "first while busy");
    const second = await send("waker", "second while busy");
    const busyRun = await untilSettled(w, since, 1, "the busy run");
    expect(busyRun.find((r) => r.type === "tool_execution_end")).toMatchObject({
      toolName: "slow_tool",
      isError: false,
    });
    expect(busNotices(busyRun)).toEqual([]);
    expect(countType(busyRun, "agent_start")).toBe(1);

    // Right after the busy run's settle, not "now": the raised run starts at once after it, and
    // its agent_start may already be in the records by the time this line runs.
    const afterBusy = since + busyRun.length;
    const raised = await untilSettled(w, afterBusy, 1, "the run raised after the busy one");
    expect(countType(raised, "agent_start")).toBe(1);
    expect(hasUserPrompt(raised)).toBe(false);
    expect(busNotices(raised)).toEqual([
      expect.objectContaining({ delivery: "wake", ids: [first, second], headline: "2 new messages on the bus" }),
    ]);
    // Announced once: nothing more is raised for the same mail.
    await quietFor(quietMs);
    expect(countType(w.events.slice(afterBusy), "agent_start")).toBe(1);
    await sessionOk(w, { action: "inbox" });
    expect(readInbox(bus, waker.id)).toEqual([]);
  });

  it("mail to a run the user aborted raises no turn, and is reported with the next prompt instead", async () => {
    const since = w.mark();
    expect((await w.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":30000}' })).success).toBe(true);
    await w.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, { since, what: "slow_tool start" });
    const id = await send("waker", "sent while you were stopped");
    await waitUntil(() => (readInbox(bus, waker.id).length > 0 ? true : undefined), {
      timeoutMs: runTimeoutMs,
      what: "the message in waker's inbox",
      alive: [w],
    });
    expect((await w.request({ type: "abort" })).success).toBe(true);
    const stopped = await untilSettled(w, since, 1, "the aborted run");
    expect(stopped.find(isSettled)?.aborted).toBe(true);
    expect(busNotices(stopped)).toEqual([]);

    // Right after the aborted run's settle: a turn raised at once would be counted.
    const afterAbort = since + stopped.length;
    await quietFor(quietMs);
    expect(countType(w.events.slice(afterAbort), "agent_start")).toBe(0);

    const next = await w.prompt("back again", runTimeoutMs);
    expect(busNotices(next.records)).toEqual([expect.objectContaining({ delivery: "next-turn", ids: [id] })]);
    expect(countType(next.records, "agent_start")).toBe(1);
    await sessionOk(w, { action: "inbox" });
  });

  it("a plain join reports new mail with the next prompt, once, and raises no turn", async () => {
    expect(await sessionOk(n, { action: "join" })).toBe(
      `On the bus as works (${nexter.id.slice(0, 8)}); next turn: new mail is reported with the next prompt. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    const since = n.mark();
    const id = await send("works", "read me at your next turn", "ask");
    await quietFor(quietMs);
    expect(countType(n.events.slice(since), "agent_start")).toBe(0);

    const next = await n.prompt("what is new?", runTimeoutMs);
    const messages = next.records.filter((r) => r.type === "message_end" && isObject(r.message));
    const roles = messages.map((r) => (isObject(r.message) ? r.message.role : ""));
    // The report follows the user's prompt (before_agent_start), and the model answers it.
    expect(roles).toEqual(["user", "custom", "assistant"]);
    expect(busNotices(next.records)).toEqual([
      {
        content: `[session-bus] 1 new message on the bus.\nask from sender (${sender.id.slice(0, 8)})\n  read me at your next turn\nRead them with session({action:"inbox"}) when they matter to your work; this notice consumed nothing.`,
        delivery: "next-turn",
        ids: [id],
        headline: "1 new message on the bus",
      },
    ]);
    const again = await n.prompt("anything else?", runTimeoutMs);
    expect(busNotices(again.records)).toEqual([]);
    expect(readInbox(bus, nexter.id).map((m) => m.id)).toEqual([id]);
  });

  it("join with listen:false is on the bus but not listening: mail waits for inbox, no report, no turn", async () => {
    expect(await sessionOk(d, { action: "join", label: "deaf", listen: false })).toBe(
      `On the bus as deaf (${deaf.id.slice(0, 8)}); not listening: mail waits in the inbox until session inbox reads it. Pi's session name is now deaf. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    expect(recordOf(bus, deaf.id)).toMatchObject({ armed: false, wake: false });
    const since = d.mark();
    await send("deaf", "unheard");
    const next = await d.prompt("hello", runTimeoutMs);
    expect(busNotices(d.events.slice(since))).toEqual([]);
    expect(countType(d.events.slice(since), "agent_start")).toBe(1);
    expect(assistantOutcomes(next.records).map((o) => o.text)).toEqual(["echo: hello"]);
    expect(await sessionOk(d, { action: "inbox" })).toBe(`message from sender (${sender.id.slice(0, 8)})\n  unheard`);
  });

  it("no session wrote anything unexpected to stderr", () => {
    for (const pi of [s, w, n, d]) expect(unexpectedStderr(pi.stderr), `stderr of ${pi.sessionId}`).toEqual([]);
  });
});
