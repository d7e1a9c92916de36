// One name and one roster between real `pi --mode rpc` processes with both extensions: a session
// whose Pi name cannot be a label joins under the label derived from it; mail reaches it by that
// label; the mail listing shows its label beside its name with its bus facts; a rename moves the
// derived label; a label another running session is named is refused, naming it; and a person's
// hold of the mail keeps bus mail from waking the session too.

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  busNotices,
  gitRepository,
  quietFor,
  sessionOk,
  sessionRefused,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { toolEnd } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import { notice, readAllMail } from "./mail-support.js";

const ant = { id: "0190a1a1-5555-7000-8000-0000000000a1", folder: "works", name: "ant" };
const bee = { id: "0190b2b2-5555-7000-8000-0000000000b2", folder: "works", name: "Code Reviewer 🚀" };
const runMs = 30_000;
/** Longer than two bus polls. */
const quietMs = 5_000;

const call = (tool: string, args: object) => `CALL_TOOL ${tool} ${JSON.stringify(args)}`;

async function toolText(pi: PiSession, tool: string, args: object): Promise<{ text: string; isError: boolean }> {
  const run = await pi.prompt(call(tool, args), runMs);
  const end = run.records.map(toolEnd).find((e) => e?.toolName === tool);
  if (end === undefined) throw new Error(`no ${tool} result`);
  return end;
}

function busLabels(sandbox: Sandbox): Record<string, unknown>[] {
  const dir = join(busFolder(sandbox), "sessions");
  return readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(readFileSync(join(dir, n), "utf8")));
}

describe("one name and one roster, between real Pi RPC sessions", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    gitRepository(sandbox, "works");
    [a, b] = (await startBusSessions(sandbox, [ant, bee])) as [PiSession, PiSession];
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("a Pi name that cannot be a label joins under the derived label, and mail reaches it by that label", async () => {
    expect(await sessionOk(b, { action: "join" })).toContain("code-reviewer");
    expect(busLabels(sandbox).find((r) => r.id === bee.id)).toMatchObject({
      label: "code-reviewer",
      name: "Code Reviewer 🚀",
    });
    const sinceB = b.mark();
    const sent = await toolText(a, "session_mail_send", { to: "code-reviewer", message: "by label" });
    expect(sent.isError).toBe(false);
    // The message wakes bee (idle): its run settles before the next case prompts it.
    await b.waitFor((r) => r.type === "agent_settled", runMs, { since: sinceB });
    expect(readAllMail(sandbox).filter((m) => m.path.includes("/sent/") && m.envelope.to === bee.id)).toHaveLength(1);
    const listed = await toolText(a, "session_mail_list", {});
    expect(listed.text).toMatch(
      /- Code Reviewer 🚀 \(bus: code-reviewer\) 0190b2b2-[^\n]*; bus: 0 claims, reads bus mail at its next turn/,
    );
  });

  it("the bus reaches a session by its Pi name, and refuses a label another running session is named", async () => {
    await sessionOk(a, { action: "join", label: "ant" });
    const sent = await sessionOk(a, { action: "send", to: "Code Reviewer 🚀", kind: "message", text: "by name" });
    expect(sent).toContain("code-reviewer");
    const refused = await sessionRefused(b, { action: "join", label: "ant" });
    expect(refused).toBe(
      "The label ant is taken by the running session ant (id 0190a1a1…); nothing was changed. Join under another label, or without one for a derived label.",
    );
  });

  it("a rename moves the derived label, and mail follows it", async () => {
    await b.request({ type: "set_session_name", name: "Lead Reviewer" }, runMs);
    const moved = () => busLabels(sandbox).find((r) => r.id === bee.id);
    expect(moved()).toMatchObject({ label: "lead-reviewer", name: "Lead Reviewer" });
    const sinceB = b.mark();
    const sent = await toolText(a, "session_mail_send", { to: "lead-reviewer", message: "after the rename" });
    expect(sent.isError).toBe(false);
    await b.waitFor((r) => r.type === "agent_settled", runMs, { since: sinceB });
  });

  it("a person's hold keeps bus mail from waking the session too; it comes with the next prompt", async () => {
    await sessionOk(b, { action: "join", wake: true });
    await b.request({ type: "prompt", message: "/mailbox hold" });
    await b.waitFor((r) => notice(r)?.message.startsWith("Holding mail back") === true, runMs, { since: 0 });
    const sinceB = b.mark();
    await sessionOk(a, { action: "send", to: "lead-reviewer", kind: "message", text: "wake up?" });
    // Several bus polls (2 s each) and the watcher's hint: a wake that was going to come has come.
    await quietFor(quietMs);
    expect(b.events.slice(sinceB).filter((r) => r.type === "agent_start")).toEqual([]);
    await b.request({ type: "prompt", message: "/mailbox accept" });
    const next = await b.prompt("anything new?", runMs);
    const reported = busNotices(next.records);
    expect(reported.map((n) => n.delivery)).toEqual(["next-turn"]);
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
    }
  });
});
