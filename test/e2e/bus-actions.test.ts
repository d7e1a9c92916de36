// Every action of the `session` tool between real `pi --mode rpc` processes on one git repository:
// the implicit join and its derived label, an explicit label as Pi's session name, claims and their
// refusals, release, send and its refusals, status, inbox, Pi's schema refusals, /sessions over RPC,
// and a partial fan-out. Three sessions, started once: two at the repository's top, one in lib/.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  busKeys,
  callSession,
  claimKeysOf,
  countType,
  gitRepository,
  idEnd,
  inboxPath,
  readClaims,
  readInbox,
  readRecords,
  recordOf,
  replaceWithFile,
  sessionName,
  sessionOk,
  sessionRefused,
  sessionsCommand,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";

const ant = { id: "0190aaaa-0000-7000-8000-00000000a001", folder: "shop" };
const bee = { id: "0190bbbb-0000-7000-8000-00000000b002", folder: "shop" };
const cat = { id: "0190cccc-0000-7000-8000-00000000c003", folder: "shop/lib" };

const notOnTheBus =
  "This session is not on the bus: it joins with join, or at its first send, inbox, claim or release.";

describe("the session tool between real Pi RPC sessions on one repository", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;
  let c: PiSession;
  let shop: string;
  /** `<agent dir>/session-bus/<repo key>`, known once a session joined. */
  let bus: string;
  const antDerived = `shop-${idEnd(ant.id)}`;

  beforeAll(async () => {
    sandbox = createSandbox();
    shop = realpathSync(gitRepository(sandbox, "shop"));
    [a, b, c] = (await startBusSessions(sandbox, [ant, bee, cat])) as [PiSession, PiSession, PiSession];
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("nothing joins at start: status says this session is not on the bus, lists nobody, and writes no record", async () => {
    const status = await callSession(a, { action: "status" });
    expect(status.isError).toBe(false);
    // Nobody is on the bus; the other two run the mailbox in this repository, and are named as such.
    const mailOnly = `Mail only, not on the bus: ${bee.id.slice(0, 8)} · idle; ${cat.id.slice(0, 8)} · idle.`;
    expect(status.text).toBe(`${notOnTheBus}\nSessions (0 active):\n${mailOnly}`);
    for (const key of busKeys(sandbox)) expect(readRecords(join(sandbox.agentDir, "session-bus", key))).toEqual([]);

    const shown = await sessionsCommand(a);
    expect(shown).toEqual([
      {
        level: "info",
        // The other two run the mailbox in this repository: listed, as not on the bus.
        message: [
          "This session has not joined the bus. Mail: 0 pending.",
          "Sessions (2):",
          `  ${bee.id.slice(0, 8)} (${bee.id}): mail only, idle`,
          `  ${cat.id.slice(0, 8)} (${cat.id}): mail only, idle`,
          "Claims: none.",
        ].join("\n"),
      },
    ]);
  });

  it("the first inbox joins under the repository folder's name, listening at the next turn, and renames nothing", async () => {
    const inbox = await callSession(b, { action: "inbox" });
    expect(inbox).toMatchObject({ isError: false, text: "No unread mail." });
    bus = busFolder(sandbox);
    expect(readRecords(bus)).toEqual([
      expect.objectContaining({
        id: bee.id,
        label: "shop",
        pid: b.pid,
        cwd: shop,
        root: shop,
        armed: true,
        wake: false,
      }),
    ]);
    expect(await sessionName(b)).toBeUndefined();
    expect(countType(inbox.records, "session_info_changed")).toBe(0);
  });

  it("the first claim joins too, and a derived label a live session holds gets the end of the session id", async () => {
    expect(await sessionOk(a, { action: "claim", paths: ["README.md"] })).toBe("Claimed README.md.");
    expect(recordOf(bus, ant.id)).toMatchObject({ label: antDerived, pid: a.pid, root: shop });
    expect(antDerived).toBe("shop-a001");
    expect(claimKeysOf(bus, ant.id)).toEqual(["README.md"]);
    expect(await sessionName(a)).toBeUndefined();
  });

  it("the first send joins a session in lib/ as lib, and reaches a peer by its label", async () => {
    const sent = await callSession(c, { action: "send", to: "shop", text: "hello from lib" });
    expect(sent.isError).toBe(false);
    const [message, ...more] = readInbox(bus, bee.id);
    expect(more).toEqual([]);
    expect(message).toMatchObject({
      from: cat.id,
      fromLabel: "lib",
      to: bee.id,
      kind: "message",
      text: "hello from lib",
      paths: [],
    });
    expect(sent.text).toBe(`Sent message to shop (${bee.id.slice(0, 8)}).`);
    expect(recordOf(bus, cat.id)).toMatchObject({ label: "lib", cwd: join(shop, "lib"), root: shop });
  });

  it("join with a label relabels the session, makes the label Pi's session name, and keeps its claims", async () => {
    const token = recordOf(bus, ant.id)?.joinToken;
    const joined = await callSession(a, { action: "join", label: "alpha" });
    expect(joined.isError).toBe(false);
    expect(joined.text).toBe(
      `On the bus as alpha (was ${antDerived}) (${ant.id.slice(0, 8)}); next turn: new mail is reported with the next prompt. Pi's session name is now alpha. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    expect(joined.records.filter((r) => r.type === "session_info_changed").map((r) => r.name)).toEqual(["alpha"]);
    expect(await sessionName(a)).toBe("alpha");
    expect(recordOf(bus, ant.id)).toMatchObject({ label: "alpha", joinToken: token, armed: true, wake: false });
    expect(readClaims(bus).filter((claim) => claim.owner === ant.id)).toEqual([
      { key: "README.md", owner: ant.id, joinToken: token },
    ]);
  });

  it("a label a live session holds is refused naming the holder's id, and a malformed one is refused; nothing changes", async () => {
    expect(await sessionRefused(c, { action: "join", label: "alpha" })).toBe(
      `The label alpha is taken by the running session alpha (id ${ant.id.slice(0, 8)}…); nothing was changed. Join under another label, or without one for a derived label.`,
    );
    expect(await sessionRefused(c, { action: "join", label: "Bad Label" })).toBe(
      '"Bad Label" is not a label: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64 characters.',
    );
    expect(recordOf(bus, cat.id)?.label).toBe("lib");
    expect(await sessionName(c)).toBeUndefined();
    expect(recordOf(bus, ant.id)?.label).toBe("alpha");
  });

  it("a claim on a directory conflicts with paths below and above it, naming the holder, and is all or nothing", async () => {
    expect(await sessionOk(b, { action: "claim", paths: ["src/api"] })).toBe("Claimed src/api.");
    expect(await sessionRefused(a, { action: "claim", paths: ["docs/guide.md", "src/api/routes.ts"] })).toBe(
      "Nothing claimed: src/api/routes.ts overlaps src/api, claimed by shop.",
    );
    expect(await sessionRefused(a, { action: "claim", paths: ["src"] })).toBe(
      "Nothing claimed: src overlaps src/api, claimed by shop.",
    );
    expect(claimKeysOf(bus, ant.id)).toEqual(["README.md"]);
    expect(claimKeysOf(bus, bee.id)).toEqual(["src/api"]);
    expect(await sessionOk(a, { action: "claim", paths: ["README.md"] })).toBe(
      "Nothing new to claim. Already held: README.md.",
    );
  });

  it("the repository itself and paths outside it are refused; below the top, . claims the session's own folder", async () => {
    expect(await sessionRefused(a, { action: "claim", paths: ["."] })).toBe(
      'path "." is the repository, not a path in it.',
    );
    expect(await sessionRefused(c, { action: "claim", paths: [".."] })).toBe(
      'path ".." is the repository, not a path in it.',
    );
    expect(await sessionRefused(a, { action: "claim", paths: ["../elsewhere.txt"] })).toBe(
      'path "../elsewhere.txt" is outside the repository.',
    );
    const outside = join(sandbox.root, "elsewhere.txt");
    expect(await sessionRefused(a, { action: "claim", paths: [outside] })).toBe(
      `path "${outside}" is outside the repository.`,
    );
    expect(await sessionRefused(a, { action: "claim", paths: [] })).toBe("Missing paths: nothing was done.");
    expect(claimKeysOf(bus, ant.id)).toEqual(["README.md"]);
    expect(await sessionOk(c, { action: "claim", paths: ["."] })).toBe("Claimed lib.");
    expect(claimKeysOf(bus, cat.id)).toEqual(["lib"]);
  });

  it("release drops own claims, names a peer's holder, says what was not claimed, and resolves like claim", async () => {
    expect(await sessionOk(a, { action: "release", paths: ["README.md", "src/api", "nothing.txt"] })).toBe(
      "Released README.md. Not claimed: nothing.txt. src/api is claimed by shop, not by this session.",
    );
    expect(claimKeysOf(bus, ant.id)).toEqual([]);
    expect(claimKeysOf(bus, bee.id)).toEqual(["src/api"]);
    expect(await sessionOk(c, { action: "release", paths: ["."] })).toBe("Released lib.");
    expect(claimKeysOf(bus, cat.id)).toEqual([]);
  });

  it("send reaches a peer by id with a message naming paths, and an event to * reaches every peer but the sender", async () => {
    // (A handoff offers claims its sender holds: bus-handoff.test.ts.)
    const handoff = await callSession(a, {
      action: "send",
      to: bee.id,
      text: "take the routes",
      paths: ["src/api/routes.ts"],
    });
    expect(handoff.isError).toBe(false);
    const atBee = readInbox(bus, bee.id).find((m) => m.text === "take the routes");
    expect(atBee).toMatchObject({
      from: ant.id,
      fromLabel: "alpha",
      text: "take the routes",
      paths: ["src/api/routes.ts"],
    });
    expect(handoff.text).toBe(`Sent message about src/api/routes.ts to shop (${bee.id.slice(0, 8)}).`);

    const event = await callSession(c, { action: "send", to: "*", kind: "event", text: "contract v2" });
    expect(event.isError).toBe(false);
    const toAnt = readInbox(bus, ant.id);
    const toBee = readInbox(bus, bee.id).filter((m) => m.kind === "event");
    expect(toAnt).toEqual([expect.objectContaining({ kind: "event", from: cat.id, to: ant.id, text: "contract v2" })]);
    expect(toBee).toEqual([expect.objectContaining({ kind: "event", from: cat.id, to: bee.id, id: toAnt[0]?.id })]);
    expect(readInbox(bus, cat.id)).toEqual([]);
    expect(event.text).toMatch(/^Sent event to /);
    expect(event.text).toContain(`alpha (${ant.id.slice(0, 8)})`);
    expect(event.text).toContain(`shop (${bee.id.slice(0, 8)})`);
    expect(event.text).not.toContain("Not delivered");
  });

  it("send refuses, writing nothing: * without kind event, itself, an unknown label, no text, too long a text", async () => {
    const before = [readInbox(bus, ant.id).length, readInbox(bus, bee.id).length, readInbox(bus, cat.id).length];
    expect(await sessionRefused(a, { action: "send", to: "*", text: "hi all" })).toBe(
      'to "*" is for kind event only (this send is kind message).',
    );
    expect(await sessionRefused(a, { action: "send", to: "*", kind: "handoff", text: "all of you" })).toBe(
      'to "*" is for kind event only (this send is kind handoff).',
    );
    expect(await sessionRefused(a, { action: "send", to: "alpha", text: "me" })).toBe(
      "That is this session: nothing was sent.",
    );
    expect(await sessionRefused(a, { action: "send", to: "nobody", text: "anyone?" })).toBe(
      'No active session is called "nobody".',
    );
    expect(await sessionRefused(a, { action: "send", to: "shop" })).toBe("Missing text: nothing was done.");
    expect(await sessionRefused(a, { action: "send", to: "shop", text: "x".repeat(4001) })).toBe(
      "The message is 4001 characters; the limit is 4000. Nothing was sent.",
    );
    expect([readInbox(bus, ant.id).length, readInbox(bus, bee.id).length, readInbox(bus, cat.id).length]).toEqual(
      before,
    );
  });

  it("status lists every session with its label, id, listening mode, unread count and claims", async () => {
    const status = await callSession(b, { action: "status" });
    expect(status.isError).toBe(false);
    const lines = status.text.split("\n");
    expect(lines.slice(0, 2)).toEqual([
      `This session: shop (${bee.id.slice(0, 8)}), listening: next turn.`,
      "Sessions (3 active):",
    ]);
    expect(lines.slice(2).sort()).toEqual(
      [
        `- alpha (${ant.id.slice(0, 8)}) · active · idle · next turn · 1 unread · no claims`,
        `- lib (${cat.id.slice(0, 8)}) · active · idle · next turn · 0 unread · no claims`,
        "- shop (this session) · active · busy · next turn · 3 unread · claims: src/api",
      ].sort(),
    );
    expect(status.details).toMatchObject({ action: "status", summary: "3 active sessions · 1 claim" });
  });

  it("inbox consumes oldest first up to the limit, names the rest in one line, and deletes only what it showed", async () => {
    const first = await sessionOk(b, { action: "inbox", limit: 2 });
    expect(first).toBe(
      `message from lib (${cat.id.slice(0, 8)})\n  hello from lib\nmessage from alpha (${ant.id.slice(0, 8)}) · paths: src/api/routes.ts\n  take the routes\n… 1 more`,
    );
    expect(readInbox(bus, bee.id).map((m) => m.text)).toEqual(["contract v2"]);
    expect(await sessionOk(b, { action: "inbox" })).toBe(`event from lib (${cat.id.slice(0, 8)})\n  contract v2`);
    expect(readInbox(bus, bee.id)).toEqual([]);
    expect(await sessionOk(b, { action: "inbox" })).toBe("No unread mail.");
  });

  it("Pi's schema refuses a limit of 51 or 0, an unknown field and an unknown action, and the tool never runs", async () => {
    const limit = await sessionRefused(a, { action: "inbox", limit: 51 });
    expect(limit).toContain('Validation failed for tool "session"');
    expect(limit).toContain("limit: expected <= 50");
    expect(await sessionRefused(a, { action: "inbox", limit: 0 })).toContain("limit: expected >= 1");
    expect(await sessionRefused(a, { action: "status", extra: 1 })).toContain("extra: unknown field");
    expect(await sessionRefused(a, { action: "bogus" })).toContain("action: expected one of");
    // The inbox was not read: the event is still there.
    expect(readInbox(bus, ant.id).map((m) => m.text)).toEqual(["contract v2"]);
  });

  it("/sessions over RPC answers with a notification carrying the listing, starts no run, and warns about an argument", async () => {
    const since = b.mark();
    const shown = await sessionsCommand(b);
    expect(shown).toHaveLength(1);
    expect(shown[0]?.level).toBe("info");
    const lines = shown[0]?.message.split("\n") ?? [];
    expect(lines.slice(0, 2)).toEqual(["This session: shop, listening: next turn. Mail: 0 pending.", "Sessions (3):"]);
    expect(lines.slice(2, 5).sort()).toEqual(
      [
        `  alpha (${ant.id}): active, idle, next turn, 1 unread, no claims`,
        `  lib (${cat.id}): active, idle, next turn, 0 unread, no claims`,
        `  shop (you) (${bee.id}): active, idle, next turn, 0 unread, claims: src/api`,
      ].sort(),
    );
    expect(lines.slice(5)).toEqual(["Claims (1):", "  src/api: shop (you)"]);
    expect(countType(b.events.slice(since), "agent_start")).toBe(0);

    const warned = await sessionsCommand(b, "now");
    expect(warned.map((n) => n.level)).toEqual(["warning", "info"]);
    expect(warned[0]?.message).toBe("/sessions takes no arguments.");
    expect(warned[1]?.message).toBe(shown[0]?.message);
  });

  it("a partial fan-out lists the peers reached and not reached and succeeds; reaching nobody is an error", async () => {
    replaceWithFile(inboxPath(bus, cat.id));
    const partial = await callSession(b, { action: "send", to: "*", kind: "event", text: "build green" });
    expect(partial.isError).toBe(false);
    const [delivered] = readInbox(bus, ant.id).filter((m) => m.text === "build green");
    expect(delivered).toMatchObject({ from: bee.id, kind: "event" });
    expect(partial.text).toBe(
      `Sent event to alpha (${ant.id.slice(0, 8)}).\nNot delivered to: lib (${cat.id.slice(0, 8)}: ${inboxPath(bus, cat.id)} is not a real folder). Ask them again; do not repeat this send (the others would get it twice).`,
    );
    expect(partial.details.result).toMatchObject({
      delivered: [{ id: ant.id, label: "alpha" }],
      failed: [expect.objectContaining({ id: cat.id, label: "lib" })],
    });

    const nobody = await sessionRefused(b, { action: "send", to: "lib", text: "are you there?" });
    expect(nobody).toMatch(/^Not delivered to anyone: lib \(.+\)\.$/);
  });

  it("no session wrote anything unexpected to stderr", () => {
    for (const pi of [a, b, c]) expect(unexpectedStderr(pi.stderr), `stderr of ${pi.sessionId}`).toEqual([]);
  });
});
