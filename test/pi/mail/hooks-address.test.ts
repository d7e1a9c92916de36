// "message:send does not resolve names: its to is an address" ("the recipient's address: a session
// id"); the provider "sets error ... an invalid to". Issue 18 §3: any address is taken as given,
// as a closed session's id that is not a UUID is (Pi makes such ids with --session-id); before,
// only a UUID or a running session's address was. What cannot be one path segment is still refused
// before it becomes a path.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useSandbox } from "./fake-session.js";
import { envelopesIn, ids, mailFiles } from "./mail-files.js";

const sandbox = useSandbox();

function emitSend(pi: { events: { emit(channel: string, data: unknown): void } }, to: unknown) {
  const payload: Record<string, unknown> = { to, body: "Please run the test suite." };
  pi.events.emit("message:send", payload);
  return payload;
}

describe("message:send takes any address as given", () => {
  it("writes to a closed session whose id is not a UUID: its mail waits in its inbox", async () => {
    const alice = await sandbox.started(ids.alice);
    const payload = emitSend(alice.pi.api, "mail-test-b");
    expect(payload.error).toBeUndefined();
    expect(payload.envelope).toMatchObject({ kind: "request", to: "mail-test-b", hops: 0 });
    expect(envelopesIn(sandbox.root, "mail-test-b", "new").map((e) => e.body)).toEqual(["Please run the test suite."]);
  });

  it("reaches that session when it starts under that id", async () => {
    const alice = await sandbox.started(ids.alice);
    const payload = emitSend(alice.pi.api, "mail-test-b");
    const peer = await sandbox.started("mail-test-b");
    const id = (payload.envelope as { id: string }).id;
    expect((await peer.mailFor(id)).mail.kind).toBe("request");
  });

  it("resolves no name: a running session's name is an address of its own, not that session", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "peer" });
    const payload = emitSend(alice.pi.api, "peer");
    expect(payload.error).toBeUndefined();
    expect(envelopesIn(sandbox.root, ids.bob, "new")).toEqual([]);
    expect(envelopesIn(sandbox.root, "peer", "new")).toHaveLength(1);
  });

  it.each([
    ["a parent folder", "../escaped"],
    ["a path with a slash", "a/b"],
    ["a dot-file", ".hidden"],
    ["the root itself", "."],
    ["an empty string", ""],
    ["a control character", "peer\n"],
  ])("refuses %s before it becomes a path, writing nothing", async (_what, to) => {
    const alice = await sandbox.started(ids.alice);
    const payload = emitSend(alice.pi.api, to);
    expect(payload.envelope).toBeUndefined();
    expect(payload.error).toMatch(/is not a session address\.$/);
    expect(mailFiles(sandbox.root)).toEqual([]);
    expect(existsSync(join(sandbox.root, "..", "escaped"))).toBe(false);
  });

  it("refuses this session's own address", async () => {
    const alice = await sandbox.started(ids.alice);
    const payload = emitSend(alice.pi.api, ids.alice);
    expect(payload.envelope).toBeUndefined();
    expect(payload.error).toBe("Refused: A session cannot send mail to itself.");
    expect(mailFiles(sandbox.root)).toEqual([]);
  });
});
