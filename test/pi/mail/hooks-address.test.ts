// "message:send does not resolve names: its to is an address" ("the recipient's address: a session
// id"); the provider "sets error ... an invalid to". A name or a short id is not an address: before,
// the request was written into a folder of that name, which no session reads.
import { describe, expect, it } from "vitest";
import { useSandbox } from "./fake-session.js";
import { envelopesIn, ids, mailFiles } from "./mail-files.js";

const sandbox = useSandbox();

describe("message:send takes an address, not a name or an id prefix", () => {
  it.each([
    ["the peer's Pi session name", "peer"],
    ["the peer's short id", ids.bob.slice(0, 8)],
  ])("refuses %s instead of writing into a folder no session reads", async (_what, to) => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "peer" });
    const payload: Record<string, unknown> = { to, body: "Please run the test suite." };
    alice.pi.api.events.emit("message:send", payload);
    const written = mailFiles(sandbox.root);
    expect(envelopesIn(sandbox.root, ids.bob, "new")).toEqual([]);
    expect(payload.envelope).toBeUndefined();
    expect(typeof payload.error).toBe("string");
    expect(written.filter((f) => f.startsWith(`${to}/`))).toEqual([]);
  });
});
