// Issue 9 §3 for the tools: a result says on one line what matters (the recipient's name and
// whether it runs, the answer's first line), a long ask reports whom it waits on through Pi's
// partial updates, and sizes read in KiB.
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type FakeSession, useSandbox, waitFor } from "./fake-session.js";
import { ids, mailFiles } from "./mail-files.js";

const sandbox = useSandbox();

function detailsOf(result: AgentToolResult<unknown>): Record<string, unknown> {
  const details: unknown = result.details;
  if (typeof details !== "object" || details === null) throw new Error("the tool result has no details");
  return details as Record<string, unknown>;
}

/** Runs a tool as Pi does, collecting its partial updates. */
function runTool(session: FakeSession, name: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const tool = session.pi.tools.get(name);
  if (tool === undefined) throw new Error(`no tool ${name}`);
  const updates: Array<AgentToolResult<unknown>> = [];
  const done = tool.execute("call-1", params, signal, (u) => void updates.push(u), session.context.ctx as never);
  return { updates, done };
}

describe("tool results for a person", () => {
  it("session_mail_send names the recipient and says it runs and got the message now", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "builder" });
    const result = await alice.tool("session_mail_send", { to: ids.bob, message: "FYI" });
    expect(detailsOf(result)).toMatchObject({
      to: ids.bob,
      name: "builder",
      running: true,
      summary: "Sent to builder (running): delivered now.",
    });
  });

  it("session_mail_send to a session that is not running says its message waits in its inbox", async () => {
    const alice = await sandbox.started(ids.alice);
    const result = await alice.tool("session_mail_send", { to: ids.closed, message: "later" });
    expect(detailsOf(result)).toMatchObject({
      running: false,
      summary: `Sent to ${ids.closed} (not running): it waits in its inbox until that session starts.`,
    });
  });

  it("session_mail_ask reports whom it waits on as soon as the ask is written, then ends with the answer's first line", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob, { name: "builder" });
    const { updates, done } = runTool(alice, "session_mail_ask", { to: ids.bob, message: "What is 6 x 7?" });
    const first = await waitFor(() => updates[0], "the first progress update");
    expect(first.content).toEqual([{ type: "text", text: "Asked builder; waiting for its answer (up to 10 min)." }]);
    expect(detailsOf(first)).toMatchObject({ to: ids.bob, name: "builder", outcome: "waiting" });
    await waitFor(() => bob.mail().find((m) => m.mail.kind === "ask"), "the ask at bob");
    await bob.runDone("42\nand some working");
    const result = await done;
    expect(detailsOf(result)).toMatchObject({ outcome: "answered", name: "builder", summary: "builder answered: 42" });
  });

  it("session_mail_list sums the sessions up by name on one line", async () => {
    const alice = await sandbox.started(ids.alice, { name: "planner" });
    await sandbox.started(ids.bob, { name: "builder" });
    const summary = String(detailsOf(await alice.tool("session_mail_list", {})).summary);
    expect(summary).toMatch(/^2 running: /);
    expect(summary).toContain("planner (this session)");
    expect(summary).toContain("builder");
  });

  it("refuses an oversized message with its size and the limit in KiB, writing nothing", async () => {
    const alice = await sandbox.started(ids.alice);
    await sandbox.started(ids.bob, { name: "builder" });
    await expect(alice.tool("session_mail_send", { to: "builder", message: "x".repeat(300_000) })).rejects.toThrow(
      "Refused: the message is 293 KiB; the limit is 256 KiB.",
    );
    await expect(
      alice.tool("session_mail_send", { to: "builder", message: "x".repeat(256 * 1024 + 1) }),
    ).rejects.toThrow("Refused: the message is 256.1 KiB; the limit is 256 KiB.");
    expect(mailFiles(sandbox.root)).toEqual([]);
  });
});
