// Both halves loaded in one Pi session (Pi's real event bus between them, the real node wiring under
// a temp agent dir): one name and one roster. The bus announces the label and the mailbox writes it
// into its running record; each half's listing shows the other's facts; a label another running
// session is named is refused, naming it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import sessionMail from "../../src/pi/mail/index.js";
import { askMailMode } from "../../src/pi/shared/roster.js";
import { type BusSession, textOf, useBusSandbox, waitFor } from "./bus/bus-session.js";

const sandbox = useBusSandbox();
const ids = {
  alice: "0190a1a1-809c-7000-8000-000000000a0a",
  bob: "0190a1a1-809c-7000-8000-000000000b0b",
  carol: "0190a1a1-809c-7000-8000-000000000c0c",
};

/** A session with the mailbox and the bus, started. */
async function both(id: string, name?: string): Promise<BusSession> {
  return sandbox.started(id, { ...(name === undefined ? {} : { name }), loadBefore: (api) => sessionMail(api) });
}

async function mailTool(session: BusSession, name: string, params: Record<string, unknown> = {}) {
  const tool = session.pi.tools.get(name);
  if (tool === undefined) throw new Error(`no ${name}`);
  return (await tool.execute(
    "call-1",
    params as never,
    undefined,
    undefined,
    session.context.ctx as never,
  )) as AgentToolResult<unknown>;
}

async function mailboxCommand(session: BusSession, args: string): Promise<void> {
  const command = session.pi.commands.get("mailbox");
  if (command === undefined) throw new Error("no /mailbox");
  await command.handler(args, session.context.ctx as never);
}

function runningRecord(id: string): Record<string, unknown> {
  const root = join(process.env.XDG_STATE_HOME ?? "", "pi-session-mail");
  return JSON.parse(readFileSync(join(root, "running", `${id}.json`), "utf8"));
}

describe("one name", () => {
  it("puts the bus label into the mailbox's record, so mail reaches the session by it", async () => {
    const alice = await both(ids.alice, "Code Reviewer 🚀");
    const bob = await both(ids.bob, "builder");
    await alice.tool({ action: "join" });
    await waitFor(() => runningRecord(ids.alice).label === "code-reviewer", "the label in alice's running record");
    const sent = await mailTool(bob, "session_mail_send", { to: "code-reviewer", message: "hello by label" });
    expect(textOf(sent)).toContain(ids.alice);
    const listed = textOf(await mailTool(bob, "session_mail_list"));
    expect(listed).toContain("Code Reviewer 🚀 (bus: code-reviewer)");
    // Leaving the bus takes the label out again.
    await alice.shutdown("reload");
  });

  it("refuses a bus label that another running session of the mailbox is named, naming it", async () => {
    await both(ids.alice, "reviewer");
    const bob = await both(ids.bob);
    const refusal = await bob.refusal({ action: "join", label: "reviewer" });
    expect(refusal).toBe(
      `The label reviewer is taken by the running session reviewer (id ${ids.alice.slice(0, 8)}…); nothing was changed. Join under another label, or without one for a derived label.`,
    );
  });
});

describe("a person decides what reaches a session", () => {
  it("tells the bus of the same session when its person holds mail back or refuses it, so no bus mail wakes it", async () => {
    const alice = await both(ids.alice, "alice");
    expect(askMailMode(alice.pi.api.events)).toBe("accept");
    await mailboxCommand(alice, "hold");
    expect(askMailMode(alice.pi.api.events)).toBe("hold");
    expect(runningRecord(ids.alice).mailMode).toBe("hold");
    await mailboxCommand(alice, "refuse");
    expect(askMailMode(alice.pi.api.events)).toBe("refuse");
    await mailboxCommand(alice, "accept");
    expect(askMailMode(alice.pi.api.events)).toBe("accept");
    expect(runningRecord(ids.alice).mailMode).toBeUndefined();
  });
});

describe("one roster", () => {
  it("lists the bus's claims and listening mode beside each session in session_mail_list", async () => {
    const alice = await both(ids.alice, "alice");
    const bob = await both(ids.bob, "bob");
    await alice.tool({ action: "join", wake: true });
    await alice.tool({ action: "claim", paths: ["src/a.ts"] });
    const listed = textOf(await mailTool(bob, "session_mail_list"));
    const line = listed.split("\n").find((l) => l.startsWith("- alice "));
    expect(line).toMatch(/: idle, working in .*; bus: 1 claim, wakes for bus mail$/);
  });

  it("shows in session status whether each member is busy and whom it waits on, and the sessions of the mailbox alone", async () => {
    const alice = await both(ids.alice, "alice");
    await both(ids.carol, "carol");
    await alice.tool({ action: "join" });
    const status = textOf(await alice.tool({ action: "status" }));
    expect(status).toMatch(/- alice \(this session\) · active · idle · /);
    expect(status).toContain("Mail only, not on the bus: carol · idle.");
  });

  it("lists the sessions of the mailbox alone on /sessions too, with every member's busy or idle and this session's pending mail", async () => {
    const alice = await both(ids.alice, "alice");
    await both(ids.carol, "carol");
    await alice.tool({ action: "join" });
    await alice.command();
    const listing = alice.context.notices.at(-1)?.text ?? "";
    expect(listing.split("\n")).toEqual([
      "This session: alice, listening: next turn. Mail: 0 pending.",
      "Sessions (2):",
      `  alice (you) (${ids.alice}): active, idle, next turn, 0 unread, no claims`,
      `  carol (${ids.carol}): mail only, idle`,
      "Claims: none.",
    ]);
  });

  it("shows in session status how many of this session's messages each peer has not read yet", async () => {
    const alice = await both(ids.alice, "alice");
    const bob = await both(ids.bob, "bob");
    await bob.tool({ action: "join", listen: false });
    await alice.tool({ action: "send", to: "bob", text: "first" });
    await alice.tool({ action: "send", to: "bob", text: "second" });
    const status = textOf(await alice.tool({ action: "status" }));
    expect(status).toMatch(/- bob \([0-9a-f-]+\) · active · idle · not listening · 2 unread \(2 from this session\)/);
    await bob.tool({ action: "inbox" });
    expect(textOf(await alice.tool({ action: "status" }))).toMatch(
      /- bob \([0-9a-f-]+\) · active · idle · not listening · 0 unread · /,
    );
  });
});
