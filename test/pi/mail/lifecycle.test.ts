import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { createFakeContext } from "../fake-pi.js";
import { type FakeSession, useSandbox, waitFor } from "./fake-session.js";
import { envelopesIn, ids, recordPath, runningRecord } from "./mail-files.js";

const sandbox = useSandbox();

const renewed = "0e1e0000-0000-7000-8000-000000000006";

function warnings(session: FakeSession): string[] {
  return session.notices().flatMap((n) => (n.level === "warning" ? [n.text] : []));
}

/** Emits message:send on a session's bus and returns the payload after emit. */
function emitSend(session: FakeSession, to: string, body: string): Record<string, unknown> {
  const payload: Record<string, unknown> = { to, body };
  session.pi.api.events.emit("message:send", payload);
  return payload;
}

describe("the running record", () => {
  it("is written owner-only at session_start with address, name, cwd, pid, idle and no waitingOn", async () => {
    const alice = await sandbox.started(ids.alice, { name: "planner" });
    expect(runningRecord(sandbox.root, ids.alice)).toMatchObject({
      address: ids.alice,
      name: "planner",
      cwd: alice.context.ctx.cwd,
      pid: process.pid,
      state: "idle",
      waitingOn: "",
    });
    expect(Date.parse(String(runningRecord(sandbox.root, ids.alice)?.updated))).not.toBeNaN();
    expect(statSync(recordPath(sandbox.root, ids.alice)).mode & 0o777).toBe(0o600);
  });

  it("is rewritten on session_info_changed (the new name), agent_start (busy) and agent_settled (idle)", async () => {
    const alice = await sandbox.started(ids.alice);
    expect(runningRecord(sandbox.root, ids.alice)?.name).toBeUndefined();
    await alice.rename("reviewer");
    expect(runningRecord(sandbox.root, ids.alice)?.name).toBe("reviewer");
    // Pi fires session_info_changed for pi.setSessionName too.
    alice.pi.api.setSessionName("lead");
    await waitFor(() => runningRecord(sandbox.root, ids.alice)?.name === "lead", "the record to carry the name lead");
    await alice.agentStart();
    expect(runningRecord(sandbox.root, ids.alice)?.state).toBe("busy");
    await alice.assistant("ok");
    await alice.settle(false);
    expect(runningRecord(sandbox.root, ids.alice)?.state).toBe("idle");
  });

  it("is removed at session_shutdown, and the footer is cleared", async () => {
    const alice = await sandbox.started(ids.alice);
    expect(existsSync(recordPath(sandbox.root, ids.alice))).toBe(true);
    await alice.shutdown();
    expect(existsSync(recordPath(sandbox.root, ids.alice))).toBe(false);
    expect(alice.context.statuses.at(-1)).toEqual({ key: "session-mail", text: undefined });
  });
});

describe("session replacement", () => {
  it("session_shutdown then session_start with a new id re-keys the record; message:send is answered once, from the new id", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob);
    await alice.shutdown();
    const cwd = alice.context.ctx.cwd;
    alice.context.stale = true;
    alice.context = createFakeContext(renewed, cwd);
    await alice.start("new");
    expect(runningRecord(sandbox.root, ids.alice)).toBeUndefined();
    expect(runningRecord(sandbox.root, renewed)).toMatchObject({ address: renewed, state: "idle" });
    const payload = emitSend(alice, ids.bob, "after the switch");
    expect(payload.error).toBeUndefined();
    expect(payload.envelope).toMatchObject({ from: renewed, to: ids.bob, kind: "request" });
    expect(envelopesIn(sandbox.root, renewed, "sent")).toHaveLength(1);
    expect(envelopesIn(sandbox.root, ids.alice, "sent")).toHaveLength(0);
    expect(envelopesIn(sandbox.root, ids.bob, "new").length + envelopesIn(sandbox.root, ids.bob, "cur").length).toBe(1);
  });

  it("as Pi does it: the old runtime invalidated and the factory re-run on the same bus; only the new session answers", async () => {
    const old = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob);
    await old.shutdown();
    old.pi.invalidate();
    old.context.stale = true;
    const next = await sandbox.started(renewed, { bus: old.pi.bus });
    const payload = emitSend(next, ids.bob, "hello from the new session");
    expect(payload.envelope).toMatchObject({ from: renewed });
    expect(envelopesIn(sandbox.root, renewed, "sent")).toHaveLength(1);
    expect(old.notices().filter((n) => n.level === "error")).toEqual([]);
  });

  it("a resumed session re-injects mail it claimed but never showed, and not mail its transcript already holds", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    await alice.command(`${ids.bob} first`);
    await alice.command(`${ids.bob} second`);
    await waitFor(() => bob.mail().length === 2, "both requests at bob");
    const [first, second] = bob.mail();
    // Pi wrote the first to the session file, but the process ended before message_end reached the extension.
    bob.context.entries.push({
      type: "custom_message",
      id: "e1",
      parentId: null,
      timestamp: new Date().toISOString(),
      customType: "session-mail",
      content: String(first?.content),
      display: true,
      details: first?.details,
    });
    await bob.shutdown();
    const entries = bob.context.entries;
    bob.context = createFakeContext(ids.bob, bob.context.ctx.cwd);
    bob.context.entries.push(...entries);
    bob.pi.sent.length = 0;
    await bob.start("resume");
    const again = await bob.mailFor(second?.mail.mailId ?? "");
    expect(again.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
    expect(bob.mail().map((m) => m.mail.mailId)).toEqual([second?.mail.mailId]);
  });
});

describe("an ask's answer across a restart", () => {
  /** alice, in a run, asks bob and gets the answer; Pi then stops mid-run and resumes the session,
   * with or without the tool result in its session file. */
  async function answeredInRun(): Promise<{ alice: FakeSession; result: AgentToolResult<unknown> }> {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "builder" });
    await alice.agentStart();
    const asking = alice.tool("session_mail_ask", { to: "builder", message: "What is 6 x 7?" });
    await waitFor(() => bob.mail().find((m) => m.mail.kind === "ask"), "the ask at bob");
    await bob.runDone("42");
    return { alice, result: await asking };
  }

  async function answeredThenResumed(resultRecorded: boolean): Promise<{ alice: FakeSession; answer: string }> {
    const { alice, result } = await answeredInRun();
    const answer = String((result.details as { answer?: unknown }).answer);
    const entries = alice.context.entries;
    if (resultRecorded) {
      entries.push({
        type: "message",
        id: "r1",
        parentId: null,
        timestamp: new Date().toISOString(),
        message: {
          role: "toolResult",
          toolCallId: "call-1",
          toolName: "session_mail_ask",
          content: result.content,
          details: result.details,
          isError: false,
          timestamp: Date.now(),
        },
      } as (typeof entries)[number]);
    }
    await alice.shutdown();
    alice.context = createFakeContext(ids.alice, alice.context.ctx.cwd);
    alice.context.entries.push(...entries);
    alice.pi.sent.length = 0;
    await alice.start("resume");
    return { alice, answer };
  }

  it("drops the answer from the claim journal once its tool result enters the conversation (message_end)", async () => {
    const { alice, result } = await answeredInRun();
    const journal = () => JSON.parse(readFileSync(join(sandbox.root, ids.alice, "claiming.json"), "utf8")) as string[];
    expect(journal()).toHaveLength(1);
    const message = { role: "toolResult", toolCallId: "call-1", toolName: "session_mail_ask", ...result };
    await alice.pi.fire("message_end", { message: { ...message, timestamp: Date.now() } }, alice.context);
    // Dropped lazily, by the next poll's rewrite.
    await waitFor(() => journal().length === 0 || undefined, "the journal without the answer");
  });

  it("shows again, as mail, an answer whose tool result never reached the session file", async () => {
    const { alice, answer } = await answeredThenResumed(false);
    const again = await alice.mailFor(answer);
    expect(again.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
    expect(String(again.content)).toContain("42");
  });

  it("does not show an answer again whose tool result the session file holds", async () => {
    const { alice, answer } = await answeredThenResumed(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answer).toMatch(/^[0-9a-f-]{36}$/);
    expect(alice.mail()).toEqual([]);
  });
});

describe("start-up checks", () => {
  it("an invalid session id turns the mailbox off with an error notice; tools and /mailbox say it is not running", async () => {
    const odd = await sandbox.started("../escape");
    expect(odd.notices()).toEqual([
      { text: 'The mailbox is off: the session id "../escape" cannot be a mail address.', level: "error" },
    ]);
    expect(existsSync(join(sandbox.root, "running"))).toBe(false);
    await expect(odd.tool("session_mail_list", {})).rejects.toThrow("This session's mailbox is not running.");
    await odd.command("");
    expect(odd.notices().at(-1)).toEqual({ text: "This session's mailbox is not running.", level: "error" });
  });

  it("an invalid session-mail.json gives one warning per session, however often it is read", async () => {
    // Spec: "An unreadable or invalid file, or an invalid value, also means the default ... with one warning per session."
    const config = join(sandbox.agentDir, "session-mail.json");
    writeFileSync(config, "{ hopLimit: 5 ");
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    await alice.tool("session_mail_send", { to: ids.bob, message: "reads the file again" });
    await alice.tool("session_mail_send", { to: ids.bob, message: "and again" });
    const expected = `${config} is not valid JSON; using the defaults (5 hops, 30 days).`;
    expect(warnings(alice)).toEqual([expected]);
    expect(warnings(bob)).toEqual([expected]);
  });

  it("an invalid value warns once and falls back to its default", async () => {
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), JSON.stringify({ hopLimit: 0, pruneAfterDays: 3 }));
    const alice = await sandbox.started(ids.alice);
    expect(warnings(alice)).toEqual([
      `${join(sandbox.agentDir, "session-mail.json")}: hopLimit must be a positive integer (at most 1000); using 5.`,
    ]);
  });

  it("an address folder open to other users gives the chmod warning and is left as it is; the root is set to 0700", async () => {
    const folder = join(sandbox.root, ids.alice);
    mkdirSync(folder, { recursive: true });
    chmodSync(sandbox.root, 0o755);
    chmodSync(folder, 0o755);
    const alice = await sandbox.started(ids.alice);
    expect(warnings(alice)).toEqual([`This session's mailbox folder is open to other users. Run: chmod 700 ${folder}`]);
    expect(statSync(folder).mode & 0o777).toBe(0o755);
    expect(statSync(sandbox.root).mode & 0o777).toBe(0o700);
    expect(statSync(join(folder, "new")).mode & 0o777).toBe(0o700);
  });
});

describe("XDG_STATE_HOME", () => {
  // "The only environment variable it reads is the standard XDG_STATE_HOME, at every call"
  it("is read at every call: once it names another mail root, the mailbox moves there before the call", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool("session_mail_send", { to: ids.bob, message: "to the first root" });
    expect(envelopesIn(sandbox.root, ids.bob, "new")).toHaveLength(1);
    const moved = join(sandbox.dir, "elsewhere");
    process.env.XDG_STATE_HOME = moved;
    const root = join(moved, "pi-session-mail");
    await alice.tool("session_mail_send", { to: ids.bob, message: "to the second root" });
    expect(envelopesIn(root, ids.bob, "new").map((e) => e.body)).toEqual(["to the second root"]);
    expect(runningRecord(root, ids.alice)).toMatchObject({ address: ids.alice });
    expect(warnings(alice)).toContainEqual(expect.stringContaining(`The mail root is now ${root}`));
  });
});
