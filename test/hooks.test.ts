// Runs the worked examples of docs/hooks.md's "Hooks" section verbatim, one `it` per ```js <name>
// block, on Pi's real createEventBus. Scope: `pi` (the extension API of a running session with
// session-mail loaded), `peer` (another running session's address), `bareBus` (a bus with no
// provider) and `assert` (node:assert/strict).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createEventBus } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type FakeSession, useSandbox, waitFor } from "./pi/mail/fake-session.js";
import { envelopesIn, ids } from "./pi/mail/mail-files.js";

const readme = new URL("../docs/hooks.md", import.meta.url);
const expectedBlocks = ["message:send", "no-provider", "message:inbound", "message:scan"];

/** The ```js <name> blocks of one `## <heading>` section, by name, in order. */
function extractBlocks(markdown: string, heading: string): Map<string, string> {
  const lines = markdown.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  if (start === -1) return new Map();
  const end = lines.findIndex((line, i) => i > start && line.startsWith("## "));
  const section = lines.slice(start + 1, end === -1 ? lines.length : end);
  const blocks = new Map<string, string>();
  for (let i = 0; i < section.length; i++) {
    const open = /^```js (\S+)\s*$/.exec(section[i] ?? "");
    if (open === null) continue;
    const close = section.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (close === -1) throw new Error(`the block ${open[1]} is never closed`);
    if (blocks.has(open[1]!)) throw new Error(`two blocks are named ${open[1]}`);
    blocks.set(open[1]!, section.slice(i + 1, close).join("\n"));
    i = close;
  }
  return blocks;
}

const blocks = extractBlocks(readFileSync(readme, "utf8"), "Hooks");

function run(name: string, session: FakeSession, peer: string): void {
  const code = blocks.get(name);
  assert.ok(code !== undefined, `docs/hooks.md's Hooks section has no \`\`\`js ${name} block`);
  const block = new Function("pi", "peer", "bareBus", "assert", code) as (...scope: unknown[]) => void;
  block(session.pi.api, peer, createEventBus(), assert);
}

const sandbox = useSandbox();

async function pair() {
  const alice = await sandbox.started(ids.alice);
  const bob = await sandbox.started(ids.bob, { name: "peer" });
  return { alice, bob };
}

describe("docs/hooks.md Hooks examples, run verbatim", () => {
  it("the Hooks section holds exactly the blocks message:send, no-provider, message:inbound and message:scan", () => {
    expect([...blocks.keys()].sort()).toEqual([...expectedBlocks].sort());
  });

  it("message:send", async () => {
    const { alice, bob } = await pair();
    run("message:send", alice, ids.bob);
    const [copy] = envelopesIn(sandbox.root, ids.alice, "sent");
    expect(copy).toMatchObject({ kind: "request", to: ids.bob, body: "Please run the test suite." });
    expect((await bob.mailFor(copy?.id ?? "")).mail.kind).toBe("request");
  });

  // Issue 18 §3: `to` is an address, taken as given. Pi makes ids that are not UUIDs with
  // --session-id; the example failed when `peer` was such a session's id and it had closed.
  it("message:send, with peer a closed session's id that is not a UUID", async () => {
    const { alice } = await pair();
    run("message:send", alice, "mail-test-b");
    const [copy] = envelopesIn(sandbox.root, ids.alice, "sent");
    expect(copy).toMatchObject({ kind: "request", to: "mail-test-b", body: "Please run the test suite." });
    expect(envelopesIn(sandbox.root, "mail-test-b", "new").map((e) => e.id)).toEqual([copy?.id]);
  });

  it("no-provider", async () => {
    const { alice } = await pair();
    run("no-provider", alice, ids.bob);
    expect(envelopesIn(sandbox.root, ids.alice, "sent")).toEqual([]);
  });

  it("message:inbound", async () => {
    const { alice, bob } = await pair();
    run("message:inbound", alice, ids.bob);
    await alice.command(`${ids.bob} Please run the linter.`);
    await waitFor(() => bob.mail().length === 1, "the request at bob");
    await bob.runDone("Lint is clean.");
    const taken = await waitFor(
      () => alice.pi.sent.find((m) => m.customType === "my-extension"),
      "the listener's own message",
    );
    const [copy] = envelopesIn(sandbox.root, ids.alice, "sent");
    const [reply] = envelopesIn(sandbox.root, ids.alice, "cur");
    expect(taken).toMatchObject({ display: true, options: { triggerTurn: true, deliverAs: "followUp" } });
    expect(taken.content).toMatch(
      new RegExp(
        `^Reply from ${ids.bob} to Please run the linter\\. \\(copy at /\\S+/sent/\\S+${copy?.id}\\.json\\):\n`,
      ),
    );
    expect(taken.content).toMatch(
      new RegExp(`\nLint is clean\\.\n\\(claimed at /\\S+/cur/\\S+${reply?.id}\\.json\\)$`),
    );
    // The listener took the reply over: session-mail injected nothing for it.
    expect(alice.mail()).toEqual([]);
  });

  it("message:scan", async () => {
    const { alice, bob } = await pair();
    await alice.command(`${ids.bob} Please answer.`);
    await waitFor(() => bob.mail().length === 1, "the request at bob");
    await bob.agentStart();
    await bob.enter(bob.mail()[0]?.mail.mailId ?? "");
    await bob.assistant("Answered.");
    // The settle writes the reply into alice's new/; from here to the block nothing yields to the
    // event loop, so neither her watcher nor her poll can claim it first.
    await bob.settle(false);
    expect(envelopesIn(sandbox.root, ids.alice, "new").map((e) => [e.kind, e.body])).toEqual([["reply", "Answered."]]);
    run("message:scan", alice, ids.bob);
    expect(envelopesIn(sandbox.root, ids.alice, "new")).toEqual([]);
    expect(alice.mail().map((m) => m.mail.kind)).toEqual(["reply"]);
  });
});
