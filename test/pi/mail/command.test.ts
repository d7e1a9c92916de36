import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeSession, useSandbox, waitFor } from "./fake-session.js";
import { envelopesIn, ids, mailFiles } from "./mail-files.js";

const sandbox = useSandbox();

async function completions(session: FakeSession, prefix: string): Promise<string[] | null> {
  const complete = session.pi.commands.get("mailbox")?.getArgumentCompletions;
  if (complete === undefined) throw new Error("/mailbox has no completions");
  const items = await complete(prefix);
  return items === null ? null : items.map((i) => i.value);
}

function lastNotice(session: FakeSession) {
  return session.notices().at(-1);
}

describe("/mailbox", () => {
  it("registers the command /mailbox", async () => {
    const alice = await sandbox.started(ids.alice);
    expect([...alice.pi.commands.keys()]).toEqual(["mailbox"]);
  });

  it("alone shows this session's address and its Pi session name", async () => {
    const alice = await sandbox.started(ids.alice, { name: "planner" });
    await alice.command("");
    expect(lastNotice(alice)?.level).toBe("info");
    expect(lastNotice(alice)?.text.split("\n")[0]).toBe(`Address ${ids.alice}, name planner`);
  });

  it("alone shows the short id as the name of a session without one", async () => {
    // Spec: other sessions see its name, "or the first 8 characters of its id when it has none".
    const bob = await sandbox.started(ids.bob);
    await bob.command("  ");
    expect(lastNotice(bob)?.text.split("\n")[0]).toBe(`Address ${ids.bob}, name b0b00000`);
  });

  it("<to> <text> notifies 'Sent <id> to <address>', and the recipient gets a request with hops 0", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "builder" });
    await alice.command("builder run the tests\nand report");
    const notice = lastNotice(alice);
    const sent = /^Sent (\S+) to (\S+)$/.exec(notice?.text ?? "");
    expect(notice?.level).toBe("info");
    expect(sent?.[2]).toBe(ids.bob);
    const arrived = await bob.mailFor(sent?.[1] ?? "");
    expect(arrived.mail.kind).toBe("request");
    expect(String(arrived.content)).toContain("\n\nrun the tests\nand report\n");
    const [copy] = envelopesIn(sandbox.root, ids.alice, "sent");
    expect(copy).toMatchObject({ id: sent?.[1], kind: "request", hops: 0, body: "run the tests\nand report" });
  });

  it("<to> <text> is never refused for hops: it carries 0 although the turn is at the limit", async () => {
    // Spec: "Requests from /mailbox carry 0 and are never refused: their sender acts for the user."
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), JSON.stringify({ hopLimit: 1 }));
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    await bob.tool("session_mail_send", { to: ids.alice, message: "ping" });
    const ping = await waitFor(() => alice.mail()[0], "ping at alice");
    await alice.agentStart();
    await alice.enter(ping.mail.mailId);
    await expect(alice.tool("session_mail_send", { to: ids.bob, message: "x" })).rejects.toThrow(/limit is 1/);
    await alice.command(`${ids.bob} go ahead`);
    expect(lastNotice(alice)?.text).toMatch(/^Sent \S+ to b0b00000-/);
    expect(envelopesIn(sandbox.root, ids.alice, "sent").map((e) => [e.kind, e.hops])).toEqual([["request", 0]]);
  });

  it("<to> <text> refused: notifies the error and writes nothing", async () => {
    const alice = await sandbox.started(ids.alice, { name: "me" });
    await alice.command("nobody hello");
    expect(lastNotice(alice)).toMatchObject({ level: "error" });
    expect(lastNotice(alice)?.text).toMatch(/^No running session is named "nobody"/);
    await alice.command("me hello");
    expect(lastNotice(alice)?.text).toBe("A session cannot send mail to itself.");
    expect(mailFiles(sandbox.root)).toEqual([]);
  });

  it("prune removes the folders of closed sessions without unread mail and reports the count", async () => {
    // Spec: /mailbox prune "removes the folder (with its cur/ and sent/) of every closed session with
    // no unread mail, including one that closed a minute ago".
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob);
    const carol = await sandbox.started(ids.carol);
    const dave = await sandbox.started(ids.dave);
    await carol.tool("session_mail_send", { to: ids.alice, message: "keep my sent copy" });
    await carol.shutdown();
    await dave.shutdown();
    await alice.tool("session_mail_send", { to: ids.closed, message: "unread, so its folder stays" });
    await alice.command("prune");
    expect(lastNotice(alice)).toEqual({ text: "Removed 2 mailbox folders of closed sessions.", level: "info" });
    expect(existsSync(join(sandbox.root, ids.carol))).toBe(false);
    expect(existsSync(join(sandbox.root, ids.dave))).toBe(false);
    for (const kept of [ids.alice, ids.bob, ids.closed]) expect(existsSync(join(sandbox.root, kept)), kept).toBe(true);
    await alice.command("prune");
    expect(lastNotice(alice)?.text).toBe("Removed 0 mailbox folders of closed sessions.");
  });

  it("sent lists what this session sent, newest first, with its recipient, age and state", async () => {
    const alice = await sandbox.started(ids.alice, { name: "planner" });
    await alice.command(`${ids.closed} pick this up when you start`);
    await alice.command("sent");
    const lines = lastNotice(alice)?.text.split("\n") ?? [];
    expect(lines[0]).toBe("Sent by this session (the newest 50 at most), newest first:");
    expect(lines[1]).toMatch(
      /^- request [0-9a-f]{8} to c105ed00, \d+s ago: waiting for c105ed00 to start · pick this up when you start$/,
    );
    expect(lines.at(-1)).toBe("/mailbox cancel <id> withdraws a request or message still queued.");
  });

  it("cancel <id> withdraws a queued request, and says so; a second cancel finds nothing", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.command(`${ids.closed} never mind`);
    const [queued] = envelopesIn(sandbox.root, ids.closed, "new");
    expect(queued).toBeDefined();
    await alice.command(`cancel ${queued!.id.slice(0, 8)}`);
    expect(lastNotice(alice)).toEqual({
      text: `Withdrawn: the request ${queued!.id.slice(0, 8)} to c105ed00 was still queued, and now never reaches it.`,
      level: "info",
    });
    expect(envelopesIn(sandbox.root, ids.closed, "new")).toEqual([]);
    expect(alice.footer()).toBeUndefined();
    await alice.command(`cancel ${queued!.id}`);
    expect(lastNotice(alice)?.level).toBe("error");
    expect(lastNotice(alice)?.text).toMatch(/^No mail among the 50 newest this session sent has an id starting with/);
  });

  it("prune <text> is a request to a session named prune", async () => {
    const alice = await sandbox.started(ids.alice);
    const prune = await sandbox.started(ids.bob, { name: "prune" });
    await alice.command("prune the old branches");
    const sent = /^Sent (\S+) to (\S+)$/.exec(lastNotice(alice)?.text ?? "");
    expect(sent?.[2]).toBe(ids.bob);
    const arrived = await prune.mailFor(sent?.[1] ?? "");
    expect(arrived.mail.kind).toBe("request");
    expect(String(arrived.content)).toContain("\n\nthe old branches\n");
  });

  it("autocomplete lists the other running sessions by name, or unique id prefix without one, and prune; never this session", async () => {
    const alice = await sandbox.started(ids.alice, { name: "me" });
    await sandbox.started(ids.bob, { name: "builder" });
    await sandbox.started(ids.carol);
    expect((await completions(alice, ""))?.sort()).toEqual([
      "accept",
      "builder ",
      "ca201000 ",
      "cancel ",
      "hold",
      "prune",
      "refuse",
      "sent",
    ]);
    expect(await completions(alice, "bu")).toEqual(["builder "]);
    expect(await completions(alice, "ca2")).toEqual(["ca201000 "]);
    expect(await completions(alice, "me")).toBeNull();
    expect(await completions(alice, "a11ce")).toBeNull();
    // Past the recipient, the text is free.
    expect(await completions(alice, "builder ")).toBeNull();
  });

  it("bad usage warns with the usage line", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.command('"a b"hello');
    expect(lastNotice(alice)).toEqual({
      text: "Usage: /mailbox (show this session's address), /mailbox <to> <text>, /mailbox sent, /mailbox cancel <id>, /mailbox hold|accept|refuse, /mailbox prune",
      level: "warning",
    });
    expect(mailFiles(sandbox.root)).toEqual([]);
  });

  // Issue 18 §5: `/mailbox lead` alone gave the generic usage line.
  it("a recipient with no text says there is nothing to send, and how the text follows it", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "lead" });
    await alice.command("lead");
    expect(lastNotice(alice)).toEqual({
      text: "Nothing to send to lead: type the text after the recipient, as in /mailbox lead <text>.",
      level: "warning",
    });
    await alice.command('  "code reviewer"  ');
    expect(lastNotice(alice)?.text).toBe(
      'Nothing to send to "code reviewer": type the text after the recipient, as in /mailbox "code reviewer" <text>.',
    );
    expect(mailFiles(sandbox.root)).toEqual([]);
  });
});
