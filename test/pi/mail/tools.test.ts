import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type FakeSession, useSandbox, waitFor } from "./fake-session.js";
import { ids, mailFiles, received, runningRecord } from "./mail-files.js";

const sandbox = useSandbox();

function textOf(result: AgentToolResult<unknown>): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

function detailsOf(result: AgentToolResult<unknown>): Record<string, unknown> {
  const details: unknown = result.details;
  if (typeof details !== "object" || details === null) throw new Error("the tool result has no details");
  return details as Record<string, unknown>;
}

/** The first mail of a kind injected into a session, once it arrives. */
function arrival(session: FakeSession, kind: string) {
  return waitFor(() => session.mail().find((m) => m.mail.kind === kind), `${kind} injected in ${session.id}`);
}

describe("the four session_mail tools", () => {
  it("registers session_mail_list, _send, _ask and _reply, each with a promptSnippet and promptGuidelines", async () => {
    const alice = await sandbox.started(ids.alice);
    expect([...alice.pi.tools.keys()].sort()).toEqual([
      "session_mail_ask",
      "session_mail_list",
      "session_mail_reply",
      "session_mail_send",
    ]);
    for (const tool of alice.pi.tools.values()) {
      // Pi prints "- <name>: <snippet>": the snippet says what the tool does, without its name.
      expect(tool.promptSnippet, tool.name).toMatch(/^[a-z]/);
      expect(tool.promptSnippet, tool.name).not.toContain(tool.name);
      expect(tool.promptGuidelines?.length, tool.name).toBeGreaterThan(0);
    }
  });

  it("tells the model in one guideline of the ask when to use mail and when the bus", async () => {
    const alice = await sandbox.started(ids.alice);
    const guidelines = alice.pi.tools.get("session_mail_ask")?.promptGuidelines ?? [];
    const choosing = guidelines.filter((line) => line.includes("the bus"));
    expect(choosing).toHaveLength(1);
    expect(choosing[0]).toContain("a question that needs an answer or work handed to one session");
    expect(choosing[0]).toContain("claims, events, handoffs");
  });

  it("session_mail_list lists every running session with name or unique id prefix, full id, cwd and state, and marks the caller", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "builder" });
    const lines = textOf(await alice.tool("session_mail_list", {})).split("\n");
    expect(lines).toHaveLength(3);
    // alice has no name: the list says how such a session shows, and how it gets a name.
    expect(lines[2]).toBe(
      "A session without a name shows the shortest prefix of its id that reaches it; /name in that session gives it a name.",
    );
    const mine = lines.find((l) => l.includes(ids.alice));
    const theirs = lines.find((l) => l.includes(ids.bob));
    expect(mine).toMatch(/^- a11ce000 a11ce000-\S+ \(this session\): idle, working in \//);
    expect(theirs).toMatch(/^- builder b0b00000-\S+: idle, working in \//);
    expect(theirs).not.toContain("this session");
  });

  it("session_mail_send to a running session says it is delivered now, and the message arrives", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "builder" });
    const result = await alice.tool("session_mail_send", { to: "builder", message: "FYI: main is green" });
    expect(textOf(result)).toMatch(/^Sent message \S+ to builder \(b0b00000-\S+\)\. It is delivered now\.$/);
    const arrived = await bob.mailFor(String(detailsOf(result).id));
    expect(arrived.mail.kind).toBe("message");
    expect(String(arrived.content)).toContain("FYI: main is green");
  });

  it("session_mail_send to a closed session by full id says it waits in that session's inbox", async () => {
    // Spec: "to a closed session, by full id, it waits in that session's inbox and the result says so".
    const alice = await sandbox.started(ids.alice);
    const result = await alice.tool("session_mail_send", { to: ids.closed, message: "for later" });
    expect(textOf(result)).toContain("not running: the message waits in its inbox until it starts again");
    expect(received(sandbox.root, ids.closed).map((e) => e.body)).toEqual(["for later"]);
  });

  describe("every refusal throws and writes nothing", () => {
    const cases: Array<[string, Record<string, string>, RegExp]> = [
      ["empty text", { to: "builder", message: "  \n" }, /Refused: the message is empty/],
      ["unknown name", { to: "nobody-here", message: "hi" }, /No running session is named "nobody-here"/],
      [
        "ambiguous name",
        { to: "twin", message: "hi" },
        /"twin" matches 2 running sessions: twin \(type ca201000, id ca201000-.*twin \(type da7e0000, id da7e0000-/,
      ],
      ["this session by name", { to: "me", message: "hi" }, /cannot send mail to itself/],
      ["this session by full id", { to: ids.alice, message: "hi" }, /cannot send mail to itself/],
    ];
    for (const tool of ["session_mail_send", "session_mail_ask"]) {
      it.each(cases)(`${tool} refuses %s`, async (_what, params, refusal) => {
        const alice = await sandbox.started(ids.alice, { name: "me" });
        await sandbox.started(ids.bob, { name: "builder" });
        await sandbox.started(ids.carol, { name: "twin" });
        await sandbox.started(ids.dave, { name: "twin" });
        const before = mailFiles(sandbox.root);
        await expect(alice.tool(tool, params)).rejects.toThrow(refusal);
        expect(mailFiles(sandbox.root)).toEqual(before);
      });
    }

    it("at the hop limit: session_mail_send and session_mail_ask are refused once the turn read mail", async () => {
      // Spec: "refused before anything is written once the count has reached the limit".
      writeFileSync(join(sandbox.agentDir, "session-mail.json"), JSON.stringify({ hopLimit: 1 }));
      const alice = await sandbox.started(ids.alice);
      const bob = await sandbox.started(ids.bob, { name: "builder" });
      await bob.tool("session_mail_send", { to: ids.alice, message: "ping (hops 0)" });
      const ping = await arrival(alice, "message");
      await alice.agentStart();
      await alice.enter(ping.mail.mailId);
      const before = mailFiles(sandbox.root);
      const refusal =
        /1 hops into a chain of sessions waking each other, and the limit is 1\. Nothing was sent\. A person typing in either session starts the count again\./;
      await expect(alice.tool("session_mail_send", { to: "builder", message: "pong" })).rejects.toThrow(refusal);
      await expect(alice.tool("session_mail_ask", { to: "builder", message: "pong?" })).rejects.toThrow(refusal);
      expect(mailFiles(sandbox.root)).toEqual(before);
    });
  });

  it("session_mail_ask round trip: the target gets the ask as a steering turn, and its settled answer is the result", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "builder" });
    const inbound: unknown[] = [];
    alice.pi.api.events.on("message:inbound", (data) => void inbound.push(data));
    const asking = alice.tool("session_mail_ask", { to: "builder", message: "What is 6 x 7?" });
    const ask = await arrival(bob, "ask");
    expect(ask.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
    expect(String(ask.content)).toContain(`Answer with session_mail_reply (ask "${ask.mail.mailId}")`);
    expect(runningRecord(sandbox.root, ids.alice)?.waitingOn).toBe(ids.bob);
    await bob.runDone("42");
    const result = await asking;
    expect(textOf(result)).toBe("Answer from builder:\n\n42");
    expect(result.isError).toBeUndefined();
    expect(detailsOf(result)).toMatchObject({ id: ask.mail.mailId, to: ids.bob, outcome: "answered" });
    expect(runningRecord(sandbox.root, ids.alice)?.waitingOn).toBe("");
    // Spec: the answer to a waiting ask "is neither injected nor emitted on message:inbound".
    expect(alice.mail()).toEqual([]);
    expect(inbound).toEqual([]);
  });

  describe("session_mail_ask refusals write nothing", () => {
    it("refuses a target that is not running", async () => {
      const alice = await sandbox.started(ids.alice);
      await expect(alice.tool("session_mail_ask", { to: ids.closed, message: "there?" })).rejects.toThrow(
        `Refused: ${ids.closed} is not running, so nobody would answer.`,
      );
      expect(mailFiles(sandbox.root)).toEqual([]);
    });

    it("refuses a second ask while one of this session's asks is waiting", async () => {
      const alice = await sandbox.started(ids.alice);
      await sandbox.started(ids.bob);
      await sandbox.started(ids.carol);
      const stop = new AbortController();
      const first = alice.tool("session_mail_ask", { to: ids.bob, message: "one" }, stop.signal);
      await waitFor(() => runningRecord(sandbox.root, ids.alice)?.waitingOn === ids.bob, "alice waiting on bob");
      const before = mailFiles(sandbox.root);
      await expect(alice.tool("session_mail_ask", { to: ids.carol, message: "two" })).rejects.toThrow(
        `Refused: this session already waits on an answer from ${ids.bob}; one ask at a time.`,
      );
      expect(mailFiles(sandbox.root)).toEqual(before);
      stop.abort();
      await first;
    });

    it("refuses to ask a session that is itself waiting on this one", async () => {
      const alice = await sandbox.started(ids.alice);
      const bob = await sandbox.started(ids.bob);
      const stop = new AbortController();
      const bobAsks = bob.tool("session_mail_ask", { to: ids.alice, message: "one" }, stop.signal);
      await waitFor(() => runningRecord(sandbox.root, ids.bob)?.waitingOn === ids.alice, "bob waiting on alice");
      const before = mailFiles(sandbox.root);
      await expect(alice.tool("session_mail_ask", { to: ids.bob, message: "back" })).rejects.toThrow(
        `Refused: ${ids.bob} is itself waiting on an answer from this session`,
      );
      expect(mailFiles(sandbox.root)).toEqual(before);
      stop.abort();
      await bobAsks;
    });
  });

  it("session_mail_ask stops waiting when its AbortSignal fires, clears waitingOn, and a late answer arrives as mail", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const stop = new AbortController();
    const asking = alice.tool("session_mail_ask", { to: ids.bob, message: "slow question" }, stop.signal);
    await arrival(bob, "ask");
    stop.abort();
    const result = await asking;
    expect(textOf(result)).toBe("Stopped waiting: the run was stopped. A later answer arrives as mail.");
    expect(result.isError).toBe(true);
    expect(detailsOf(result).outcome).toBe("aborted");
    expect(runningRecord(sandbox.root, ids.alice)?.waitingOn).toBe("");
    // Spec: a reply to an ask no longer waiting "starts a turn, and its label says the ask stopped waiting".
    await bob.runDone("late answer");
    const late = await arrival(alice, "reply");
    expect(late.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
    expect(String(late.content)).toContain("Your session_mail_ask had stopped waiting, so it arrives as mail.");
  });

  it("session_mail_ask ends with 'stopped running' when the target's running record disappears", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const asking = alice.tool("session_mail_ask", { to: ids.bob, message: "are you there?" });
    await arrival(bob, "ask");
    await bob.shutdown();
    const result = await asking;
    expect(textOf(result)).toMatch(/stopped running before it answered/);
    expect(detailsOf(result).outcome).toBe("target-gone");
  });

  it("session_mail_reply answers an ask at once; the settle then leaves that ask out but answers the sender's request", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    await alice.command(`${ids.bob} please summarise the log`);
    const asking = alice.tool("session_mail_ask", { to: ids.bob, message: "Is the build green?" });
    const request = await arrival(bob, "request");
    const ask = await arrival(bob, "ask");
    await bob.agentStart();
    await bob.enter(request.mail.mailId);
    await bob.enter(ask.mail.mailId);
    const replied = await bob.tool("session_mail_reply", { ask: ask.mail.mailId, message: "Yes, green." });
    expect(textOf(replied)).toMatch(new RegExp(`^Answered ask ${ask.mail.mailId} \\(reply \\S+\\)\\.$`));
    expect(textOf(await asking)).toBe(`Answer from ${ids.bob}:\n\nYes, green.`);

    const before = mailFiles(sandbox.root);
    const refusals: Array<[Record<string, string>, string]> = [
      [{ ask: ask.mail.mailId, message: "again" }, `Refused: ask ${ask.mail.mailId} has already been answered.`],
      [
        { ask: request.mail.mailId, message: "x" },
        "is a request; it is answered automatically when this run completes",
      ],
      [
        { ask: "00000000-0000-7000-8000-00000000dead", message: "x" },
        "Refused: no ask 00000000-0000-7000-8000-00000000dead",
      ],
    ];
    for (const [params, refusal] of refusals) {
      await expect(bob.tool("session_mail_reply", params)).rejects.toThrow(refusal);
    }
    expect(mailFiles(sandbox.root)).toEqual(before);

    await bob.assistant("Summary: all good.");
    await bob.settle(false);
    const replies = received(sandbox.root, ids.alice).filter((e) => e.kind === "reply");
    expect(Object.fromEntries(replies.map((e) => [e.in_reply_to.join(","), `${e.status}: ${e.body}`]))).toEqual({
      [ask.mail.mailId]: "done: Yes, green.",
      [request.mail.mailId]: "done: Summary: all good.",
    });
  });

  it("session_mail_reply refuses an empty answer and sends nothing", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const stop = new AbortController();
    const asking = alice.tool("session_mail_ask", { to: ids.bob, message: "q" }, stop.signal);
    const ask = await arrival(bob, "ask");
    const before = mailFiles(sandbox.root);
    await expect(bob.tool("session_mail_reply", { ask: ask.mail.mailId, message: " " })).rejects.toThrow(
      "Refused: the answer is empty.",
    );
    expect(mailFiles(sandbox.root)).toEqual(before);
    stop.abort();
    await asking;
  });
});
