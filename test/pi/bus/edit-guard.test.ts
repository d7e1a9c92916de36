// The edit check as Pi runs it: a `tool_call` handler over Pi's real event bus, in sessions joined
// and not, against claims on a real file system.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
// Pi does not export its path helper: the test reads it from the installed package itself.
import { resolveToCwd } from "../../../node_modules/@earendil-works/pi-coding-agent/dist/core/tools/path-utils.js";
import { toolPath } from "../../../src/pi/bus/tool-paths.js";
import { type BusSession, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();

const ids = {
  lead: "019b0000-0000-7000-8000-00000000a001",
  peer: "019b0000-0000-7000-8000-00000000b002",
  solo: "019b0000-0000-7000-8000-00000000c003",
};

async function toolCall(session: BusSession, toolName: string, input: Record<string, unknown>) {
  const results = (await session.pi.fire(
    "tool_call",
    { toolCallId: "t1", toolName, input },
    session.context,
  )) as Array<{
    block?: boolean;
    reason?: string;
  }>;
  return results.find((r) => r.block === true);
}

async function leadHolding(paths: string[]): Promise<BusSession> {
  mkdirSync(join(sandbox.repo, "src"), { recursive: true });
  writeFileSync(join(sandbox.repo, "src/a.ts"), "a\n");
  writeFileSync(join(sandbox.repo, "src/b.ts"), "b\n");
  const lead = await sandbox.started(ids.lead);
  await lead.tool({ action: "join", label: "lead" });
  await lead.tool({ action: "claim", paths });
  return lead;
}

describe("the edit check in Pi", () => {
  it("blocks edit and write of a live peer's path in a joined and an unjoined session, with a reason to act on", async () => {
    await leadHolding(["src/a.ts"]);
    const peer = await sandbox.started(ids.peer);
    await peer.tool({ action: "join", label: "peer" });
    const solo = await sandbox.started(ids.solo);
    for (const session of [peer, solo]) {
      for (const [tool, input] of [
        ["edit", { path: "src/a.ts", edits: [{ oldText: "a", newText: "b" }] }],
        ["write", { path: "@src/a.ts", content: "x" }],
        ["write", { path: join(sandbox.repo, "src/../src/a.ts"), content: "x" }],
      ] as const) {
        const blocked = await toolCall(session, tool, input);
        expect(blocked?.reason).toMatch(
          /^Blocked: src\/a\.ts is claimed by lead \(session 019b0000-0000-7000-8000-00000000a\) since just now\./,
        );
        expect(blocked?.reason).toMatch(/\nDo not retry this edit: ask lead for the file with the session tool/);
      }
    }
    // The unjoined session is still off the bus: checking wrote nothing of it.
    expect(sandbox.records().map((r) => r.label)).toEqual(["lead", "peer"]);
  });

  it("never checks reading tools, bash, or the session tool, and lets the holder edit its own path", async () => {
    const lead = await leadHolding(["src"]);
    const solo = await sandbox.started(ids.solo);
    expect(await toolCall(solo, "read", { path: "src/a.ts" })).toBeUndefined();
    expect(await toolCall(solo, "grep", { pattern: "a", path: "src" })).toBeUndefined();
    expect(await toolCall(solo, "session", { action: "release", paths: ["src"] })).toBeUndefined();
    expect(await toolCall(lead, "edit", { path: "src/a.ts", edits: [] })).toBeUndefined();
    expect(await toolCall(solo, "write", { path: "README.md", content: "" })).toBeUndefined();
  });

  it("a joined session's edit claims the file, observed; the refusal then says so", async () => {
    const lead = await leadHolding(["src/a.ts"]);
    expect(await toolCall(lead, "write", { path: "src/b.ts", content: "" })).toBeUndefined();
    expect(sandbox.claims().filter((name) => name.startsWith("!"))).toEqual([
      `!src%2Fb.ts~${ids.lead}~${claimToken()}`,
    ]);
    const solo = await sandbox.started(ids.solo);
    const blocked = await toolCall(solo, "edit", { path: "src/b.ts", edits: [] });
    expect(blocked?.reason).toMatch(
      /claimed by lead \(taken by its edits: it lapses 15 minutes after lead's last edit there\)/,
    );
  });

  it("fails open with one warning per session when the claims cannot be read", async () => {
    await leadHolding(["src/a.ts"]);
    const solo = await sandbox.started(ids.solo);
    // claims/ replaced by a file: the listing fails (as an I/O error would), whoever runs the test.
    const claims = join(sandbox.busDir() ?? "", "claims");
    rmSync(claims, { recursive: true });
    writeFileSync(claims, "");
    expect(await toolCall(solo, "write", { path: "src/a.ts", content: "x" })).toBeUndefined();
    expect(await toolCall(solo, "write", { path: "src/a.ts", content: "x" })).toBeUndefined();
    const warned = solo.context.notices.filter((n) => n.text.startsWith("Claims were not checked before an edit"));
    expect(warned).toHaveLength(1);
    expect(warned[0]?.level).toBe("warning");
  });

  it("tells nobody the bus is off when a session outside any repository edits a file", async () => {
    const outside = join(sandbox.dir, "plain");
    mkdirSync(outside);
    const solo = await sandbox.started(ids.solo, { cwd: outside });
    expect(await toolCall(solo, "write", { path: "notes.md", content: "" })).toBeUndefined();
    expect(solo.context.notices).toEqual([]);
  });

  it("names the file Pi's own tools write, for every spelling they accept", () => {
    const cwd = "/work/repo/src";
    for (const given of [
      "a.ts",
      "@a.ts",
      "./x/../a.ts",
      "/abs/a.ts",
      "~/a.ts",
      "~",
      "file:///abs/b.ts",
      "a\u00A0b.ts",
    ]) {
      expect(toolPath(given, cwd)).toBe(resolveToCwd(given, cwd));
    }
    expect(toolPath("~/a.ts", cwd)).toBe(join(homedir(), "a.ts"));
  });
});

/** The lead's join token, read off its record. */
function claimToken(): string {
  const lead = sandbox.records().find((r) => r.label === "lead");
  return String(lead?.joinToken);
}

describe("status names observed claims and standing offers", () => {
  it("says (observed) beside a path an edit took, and lists an offer under Offers", async () => {
    const lead = await leadHolding(["src/a.ts"]);
    await toolCall(lead, "write", { path: "src/b.ts", content: "" });
    const peer = await sandbox.started(ids.peer);
    await peer.tool({ action: "join", label: "peer" });
    await lead.tool({ action: "send", to: "peer", kind: "handoff", text: "yours", paths: ["src/a.ts"] });
    const text = (await peer.tool({ action: "status" })).content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(text).toMatch(
      /- lead \([^)]+\) · active · next turn · 0 unread · claims: src\/a\.ts, src\/b\.ts \(observed\)/,
    );
    expect(text).toMatch(/\nOffers:\n- lead \([^)]+\) offers peer the claims on src\/a\.ts \(handoff [0-9a-f-]+\)$/);
  });
});

describe("shell writes: seen after the call, named to the model and to the holder", () => {
  async function bash(session: BusSession, id: string, command: string, effect: () => void) {
    const input = { command };
    await session.pi.fire("tool_call", { toolCallId: id, toolName: "bash", input }, session.context);
    effect();
    const content = [{ type: "text", text: "(output)" }];
    const results = (await session.pi.fire(
      "tool_result",
      { toolCallId: id, toolName: "bash", input, content, isError: false, details: undefined },
      session.context,
    )) as Array<{ content?: Array<{ type: string; text?: string }> }>;
    await session.pi.fire("tool_execution_end", { toolCallId: id, toolName: "bash" }, session.context);
    return results
      .at(-1)
      ?.content?.map((c) => c.text ?? "")
      .join("\n");
  }

  it("names a claimed file a command changed, whose claim it is and what to do; the holder gets an event", async () => {
    const lead = await leadHolding(["src/a.ts", "docs"]);
    const solo = await sandbox.started(ids.solo);
    const text = await bash(solo, "b1", "echo x >> src/a.ts && touch docs/new.md\nmore", () => {
      writeFileSync(join(sandbox.repo, "src/a.ts"), "a\nx\n");
      mkdirSync(join(sandbox.repo, "docs"), { recursive: true });
      writeFileSync(join(sandbox.repo, "docs/new.md"), "");
    });
    expect(text).toMatch(/^\(output\)\n\[session-bus\] This command changed files another session has claimed: /);
    expect(text).toContain(
      `${sandbox.repo}/src/a.ts (changed; claimed by lead, session 019b0000-0000-7000-8000-00000000a)`,
    );
    expect(text).toContain(`${sandbox.repo}/docs/new.md (made; claimed by lead`);
    expect(text).toMatch(/Their holder was told\. Undo your change to them, or ask lead with the session tool/);
    const inbox = (await lead.tool({ action: "inbox" })).content.map((c) => (c.type === "text" ? c.text : "")).join("");
    expect(inbox).toMatch(/^event from session 019b0000 \([^)]+\) · paths: docs, src\/a\.ts\n/);
    expect(inbox).toMatch(
      /shell command changed files under your claims: \S+\/docs\/new\.md \(made\), \S+\/src\/a\.ts \(changed\)\./,
    );
    expect(inbox).toContain("The command: echo x >> src/a.ts && touch docs/new.md");
    // Sent without joining: the writer is still off the bus.
    expect(sandbox.records().map((r) => r.label)).toEqual(["lead"]);
  });

  it("says nothing when the command touched no claimed file, and nothing when nobody holds anything", async () => {
    await leadHolding(["src/a.ts"]);
    const solo = await sandbox.started(ids.solo);
    expect(
      await bash(solo, "b2", "echo y > notes.txt", () => writeFileSync(join(sandbox.repo, "notes.txt"), "y")),
    ).toBe(undefined);
  });
});
