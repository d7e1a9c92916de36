// Issue 9 §3, what a person at the terminal runs into with /mailbox: unnamed sessions whose ids
// share their first 8 characters (UUIDv7), names with spaces, "Sent" to a session that is not
// running, the running sessions listed by /mailbox alone, and refusals Pi prefixes with "Error:".
import { describe, expect, it } from "vitest";
import { parseMailboxCommand } from "../../../src/pi/mail/command-args.js";
import { type FakeSession, useSandbox } from "./fake-session.js";
import { ids, mailFiles, received } from "./mail-files.js";

const sandbox = useSandbox();

// Three sessions started within the same minute: Pi's UUIDv7 ids share the first 8 characters.
const minute = {
  first: "0190a1a1-7f64-7000-8000-000000000011",
  second: "0190a1a1-809c-7000-8000-000000000012",
  third: "0190a1a1-809d-7000-8000-000000000013",
} as const;

async function completions(session: FakeSession, prefix: string): Promise<string[] | null> {
  const complete = session.pi.commands.get("mailbox")?.getArgumentCompletions;
  if (complete === undefined) throw new Error("/mailbox has no completions");
  const items = await complete(prefix);
  return items === null ? null : items.map((i) => i.value);
}

const lastNotice = (session: FakeSession) => session.notices().at(-1);

describe("/mailbox for a person at the terminal", () => {
  it("completes unnamed sessions by the shortest id prefix that tells them apart, never shorter than 8", async () => {
    const alice = await sandbox.started(ids.alice, { name: "me" });
    await sandbox.started(minute.first);
    await sandbox.started(minute.second);
    await sandbox.started(minute.third);
    expect((await completions(alice, "0190"))?.sort()).toEqual(["0190a1a1-7 ", "0190a1a1-809c ", "0190a1a1-809d "]);
    // Typed back, each one reaches its session.
    await alice.command("0190a1a1-809c are you the second?");
    expect(lastNotice(alice)?.text).toMatch(new RegExp(`^Sent \\S+ to ${minute.second}$`));
  });

  it("ends a completion with a space, so the text typed next is not glued to the name", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "reviewer" });
    const [value] = (await completions(alice, "rev")) ?? [];
    expect(value).toBe("reviewer ");
    // Pi's editor replaces the whole argument text with the value, then the person types on.
    expect(`/mailbox ${value}Please look`).toBe("/mailbox reviewer Please look");
    // Past a complete recipient, the text is free: no more completions.
    expect(await completions(alice, "reviewer Ple")).toBeNull();
  });

  it("offers two sessions that share a name by their unique prefixes, since the name would be refused", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(minute.first, { name: "twin" });
    await sandbox.started(minute.second, { name: "twin" });
    expect((await completions(alice, "tw"))?.sort()).toEqual(["0190a1a1-7 ", "0190a1a1-8 "]);
  });

  it("offers by its prefix a session whose name reads as a full id, and every value it offers then reaches its session", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob);
    // Named like bob's short id (the name resolves first, so it reaches carol), and like a closed
    // session's full id (it would send to that closed session).
    await sandbox.started(ids.carol, { name: ids.bob.slice(0, 8) });
    await sandbox.started(ids.dave, { name: ids.closed });
    expect(
      (await completions(alice, ""))
        ?.filter((v) => !["prune", "sent", "cancel ", "hold", "accept", "refuse"].includes(v))
        .sort(),
    ).toEqual(
      // bob's 8 characters are carol's name, so his prefix grows past it.
      [`${ids.bob.slice(0, 9)} `, `${ids.bob.slice(0, 8)} `, `${ids.dave.slice(0, 8)} `].sort(),
    );
    expect((await completions(alice, "c105"))?.sort()).toEqual([`${ids.dave.slice(0, 8)} `]);
    for (const [value, to] of [
      [ids.bob.slice(0, 9), ids.bob],
      [ids.bob.slice(0, 8), ids.carol],
      [ids.dave.slice(0, 8), ids.dave],
    ]) {
      await alice.command(`${value} hello`);
      expect(lastNotice(alice)?.text).toMatch(new RegExp(`^Sent \\S+ to ${to}$`));
    }
  });

  it("quotes a name with spaces in its completion, and completes inside a quote already opened", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "code reviewer" });
    expect(await completions(alice, "co")).toEqual(['"code reviewer" ']);
    expect(await completions(alice, '"code r')).toEqual(['"code reviewer" ']);
    expect(await completions(alice, "'code")).toEqual(["'code reviewer' "]);
    expect(await completions(alice, '"code reviewer" Plea')).toBeNull();
  });

  it("sends to a name with spaces written in double or single quotes", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "code reviewer" });
    await alice.command('"code reviewer" Please review the diff.');
    const first = /^Sent (\S+) to (\S+)$/.exec(lastNotice(alice)?.text ?? "");
    expect(first?.[2]).toBe(ids.bob);
    await alice.command("'code reviewer'   and the tests");
    expect(lastNotice(alice)?.text).toMatch(new RegExp(`^Sent \\S+ to ${ids.bob}$`));
    const arrived = await bob.mailFor(first?.[1] ?? "");
    expect(String(arrived.content)).toContain("\n\nPlease review the diff.\n");
    expect(received(sandbox.root, ids.bob).map((e) => e.body)).toEqual(["Please review the diff.", "and the tests"]);
  });

  it("refuses an unterminated quote clearly and writes nothing", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "code reviewer" });
    await alice.command('"code reviewer Please review');
    expect(lastNotice(alice)).toEqual({
      text: 'The quote before code reviewer Please review is never closed. A name with spaces goes in quotes, then the text: /mailbox "code reviewer" <text>',
      level: "error",
    });
    expect(mailFiles(sandbox.root)).toEqual([]);
  });

  it("parses quoted recipients: single or double quotes, the text after a space, an unterminated quote apart", () => {
    expect(parseMailboxCommand('"a b" hello there')).toEqual({ kind: "send", to: "a b", text: "hello there" });
    expect(parseMailboxCommand("'a \"b\"'  x")).toEqual({ kind: "send", to: 'a "b"', text: "x" });
    expect(parseMailboxCommand('"a b"')).toEqual({ kind: "no-text", recipient: '"a b"' });
    expect(parseMailboxCommand("  lead  ")).toEqual({ kind: "no-text", recipient: "lead" });
    expect(parseMailboxCommand('"a b"hello')).toEqual({ kind: "usage" });
    expect(parseMailboxCommand("'a b hello")).toEqual({ kind: "unterminated", rest: "a b hello" });
    expect(parseMailboxCommand("plain text here")).toEqual({ kind: "send", to: "plain", text: "text here" });
  });

  it("says that mail to a session that is not running waits in its inbox until that session starts", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.command(`${ids.closed} for when you start`);
    const notice = lastNotice(alice);
    expect(notice?.level).toBe("info");
    expect(notice?.text).toMatch(
      new RegExp(
        `^Sent \\S+ to ${ids.closed}\\. That session is not running: the request waits in its inbox until that session starts\\.$`,
      ),
    );
    expect(received(sandbox.root, ids.closed).map((e) => e.body)).toEqual(["for when you start"]);
  });

  it("alone also lists the running sessions: name or unique prefix, cwd, idle or busy, whom each waits on", async () => {
    const alice = await sandbox.started(ids.alice, { name: "planner" });
    const bob = await sandbox.started(minute.first);
    await sandbox.started(minute.second, { name: "builder" });
    const stop = new AbortController();
    await bob.agentStart();
    const asking = bob.tool("session_mail_ask", { to: "builder", message: "ready?" }, stop.signal);
    await alice.command("");
    const lines = (lastNotice(alice)?.text ?? "").split("\n");
    expect(lines[0]).toBe(`Address ${ids.alice}, name planner`);
    expect(lines.slice(1)).toEqual([
      "Running sessions:",
      `- 0190a1a1-7: busy, waiting on builder, working in ${bob.context.ctx.cwd}`,
      `- builder: idle, working in ${bob.context.ctx.cwd}`,
      `- planner (this session): idle, working in ${alice.context.ctx.cwd}`,
      "A session without a name shows the shortest prefix of its id that reaches it; /name in that session gives it a name.",
    ]);
    stop.abort();
    await asking;
  });

  it("shows a refusal once: Pi already puts 'Error:' before an error notice", async () => {
    const alice = await sandbox.started(ids.alice, { name: "me" });
    await alice.command("nobody hello");
    expect(lastNotice(alice)).toEqual({
      text: 'No running session is named "nobody", and an id prefix needs at least 8 characters. A closed session is reached by its full id.',
      level: "error",
    });
    await alice.command("me hello");
    expect(lastNotice(alice)?.text).toBe("A session cannot send mail to itself.");
  });
});
