// The join API for other extensions over pi.events, and `session-label`. The two ```js blocks the
// bus documentation shows run verbatim on Pi's real createEventBus, as test/hooks.test.ts runs the
// mail hooks: from docs/bus.md once it holds a ```js session-bus:join block, until then from
// join-api-readme.md.
// Scope: `pi` (a running session with session-bus loaded; a peer joined as `integrator`),
// `bareBus` (no bus installed) and `assert` (node:assert/strict).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createEventBus } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type BusSession, ids, useBusSandbox } from "./bus-session.js";

const names = ["session-bus:join", "session-label"];
const readmeUrl = new URL("../../../docs/bus.md", import.meta.url);
const fallbackUrl = new URL("./join-api-readme.md", import.meta.url);

/** Every ```js <name> block of a markdown text, by name. */
function extractBlocks(markdown: string): Map<string, string> {
  const lines = markdown.split("\n");
  const blocks = new Map<string, string>();
  for (let i = 0; i < lines.length; i++) {
    const open = /^```js (\S+)\s*$/.exec(lines[i] ?? "");
    if (open === null || !names.includes(open[1] ?? "")) continue;
    const close = lines.findIndex((line, j) => j > i && /^```\s*$/.test(line));
    if (close === -1) throw new Error(`the block ${open[1]} is never closed`);
    if (blocks.has(open[1] ?? "")) throw new Error(`two blocks are named ${open[1]}`);
    blocks.set(open[1] ?? "", lines.slice(i + 1, close).join("\n"));
    i = close;
  }
  return blocks;
}

const readme = readFileSync(readmeUrl, "utf8");
const inReadme = /^```js session-bus:join\s*$/m.test(readme);
const source = inReadme ? "docs/bus.md" : "test/pi/bus/join-api-readme.md";
const blocks = extractBlocks(inReadme ? readme : readFileSync(fallbackUrl, "utf8"));

function run(name: string, session: BusSession): void {
  const code = blocks.get(name);
  assert.ok(code !== undefined, `${source} has no \`\`\`js ${name} block`);
  const block = new Function("pi", "bareBus", "assert", code) as (...scope: unknown[]) => void;
  block(session.pi.api, createEventBus(), assert);
}

const sandbox = useBusSandbox();

/** alice started, off the bus; bob joined as integrator. */
async function pair() {
  const alice = await sandbox.started(ids.alice);
  const bob = await sandbox.started(ids.bob);
  await bob.tool({ action: "join", label: "integrator" });
  return { alice, bob };
}

describe(`the join API's README blocks, run verbatim from ${source}`, () => {
  it("the source holds exactly the blocks session-bus:join and session-label", () => {
    expect([...blocks.keys()].sort()).toEqual([...names].sort());
  });

  it("session-bus:join", async () => {
    const { alice } = await pair();
    run("session-bus:join", alice);
    // The label asked for is Pi's session name too, and the refused join changed nothing.
    expect(alice.pi.name).toBe("billing-core");
    expect(sandbox.records().find((r) => r.id === ids.alice)).toMatchObject({ label: "billing-core", wake: true });
    expect(alice.labels).toEqual([{ id: ids.alice, label: "billing-core" }]);
  });

  it("session-label", async () => {
    const { alice } = await pair();
    run("session-label", alice);
    expect(alice.pi.name).toBe("billing-api");
    await alice.shutdown("quit");
    expect(alice.labels).toEqual([
      { id: ids.alice, label: "billing-core" },
      { id: ids.alice, label: "billing-api" },
      { id: ids.alice, label: undefined },
    ]);
  });
});

describe("session-bus:join", () => {
  const emitJoin = (session: BusSession, payload: Record<string, unknown>) => {
    session.pi.api.events.emit("session-bus:join", payload);
    return payload;
  };

  it("without a label joins under the derived one, leaves Pi's name alone, and answers the mode", async () => {
    const { alice } = await pair();
    expect(emitJoin(alice, { listen: false })).toEqual({
      listen: false,
      result: { id: ids.alice, label: "repo", listening: false, wake: false },
    });
    expect(alice.pi.name).toBeUndefined();
    expect(alice.labels).toEqual([{ id: ids.alice, label: "repo" }]);
  });

  it("a malformed request or label is an error on the payload, and nothing joins", async () => {
    const { alice } = await pair();
    expect(emitJoin(alice, { label: 7 }).error).toEqual({
      kind: "bad-request",
      message: "session-bus:join takes { label?: string, wake?: boolean, listen?: boolean, observe?: boolean }.",
    });
    expect(emitJoin(alice, { wake: "yes" }).error).toMatchObject({ kind: "bad-request" });
    expect(emitJoin(alice, { label: "No Spaces" }).error).toMatchObject({ kind: "invalid-label" });
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    expect(alice.labels).toEqual([]);
  });

  it("names the holder's id when the label is taken", async () => {
    const { alice } = await pair();
    expect(emitJoin(alice, { label: "integrator" }).error).toEqual({
      kind: "label-taken",
      message: `The label integrator is taken by the running session integrator (id ${ids.bob.slice(0, 8)}…); nothing was changed. Join under another label, or without one for a derived label.`,
      holder: ids.bob,
    });
  });

  it("before session_start (no session to join) answers an error; a payload another provider answered is left alone", async () => {
    const alice = sandbox.session(ids.alice);
    expect(emitJoin(alice, {}).error).toEqual({ kind: "not-started", message: "The bus has no session yet." });
    await alice.start();
    const answered = { result: { id: "x", label: "y", listening: true, wake: false } };
    expect(emitJoin(alice, answered)).toEqual({ result: { id: "x", label: "y", listening: true, wake: false } });
    expect(sandbox.records()).toEqual([]);
  });
});

describe("session-label", () => {
  it.each(["quit", "new", "resume", "fork"])(
    "is { id, label: undefined } at a session_shutdown for %s",
    async (reason) => {
      const { alice } = await pair();
      await alice.tool({ action: "join", label: "billing-core" });
      await alice.shutdown(reason);
      expect(alice.labels.at(-1)).toEqual({ id: ids.alice, label: undefined });
      expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    },
  );

  it("is not sent at a reload, which keeps the membership", async () => {
    const { alice } = await pair();
    await alice.tool({ action: "join", label: "billing-core" });
    await alice.shutdown("reload");
    expect(alice.labels).toEqual([{ id: ids.alice, label: "billing-core" }]);
  });

  it("is not sent at shutdown by a session that never joined", async () => {
    const { alice } = await pair();
    await alice.tool({ action: "status" });
    await alice.shutdown("quit");
    expect(alice.labels).toEqual([]);
  });
});
