// Issue 18 §2 and §5, what a person and the model read of the bus: a `status` held to a budget with
// a line that counts what it left out; a collapsed notice that names its sender and the first line
// of the text; short id prefixes instead of full UUIDs; and a word when leaving drops claims.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { SessionRow, StatusView } from "../../../src/domain/bus/engine/index.js";
import { statusTextCharsMax } from "../../../src/domain/bus/limits.js";
import { noticeContent } from "../../../src/pi/bus/notice.js";
import { statusText } from "../../../src/pi/bus/status-text.js";
import { ids, textOf, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();
const theme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s, bold: (s: string) => s };
const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/;

function row(i: number, claims: number, extra: Partial<SessionRow> = {}): SessionRow {
  return {
    id: `0190a1a1-${String(i).padStart(4, "0")}-7000-8000-000000000000`,
    label: `s${String(i).padStart(4, "0")}`,
    state: "active",
    listening: "next-turn",
    unread: 0,
    unreadAtLeast: false,
    claims: Array.from({ length: claims }, (_, k) => `src/s${i}/${"p".repeat(40)}/${String(k).padStart(5, "0")}.ts`),
    observed: [],
    self: false,
    cwd: "/repo",
    heartbeatMs: 0,
    stopped: false,
    ...extra,
  };
}

function view(sessions: SessionRow[]): StatusView {
  const self = sessions.find((s) => s.self);
  return {
    self: { id: self?.id, label: self?.label, joined: self !== undefined, listening: "next-turn" },
    sessions,
    offers: [],
    unreadableRecords: 0,
    root: "/repo",
  };
}

describe("status keeps to a budget and counts what it left out", () => {
  it("20,000 claims over 400 sessions: within the budget, this session first, then live ones, then gone, and one closing line", () => {
    const sessions = Array.from({ length: 400 }, (_, i) => row(i, 50));
    sessions[399] = row(399, 50, { self: true });
    sessions[1] = row(1, 0, { state: "gone" });
    const { text, summary, data } = statusText(view(sessions));
    expect(text.length).toBeLessThanOrEqual(statusTextCharsMax);
    const lines = text.split("\n");
    // Rows before paths: with 400 sessions the rows fill the budget, and the claims are counted.
    expect(lines[2]).toBe("- s0399 (this session) · active · next turn · 0 unread · 50 claims, not shown");
    expect(lines.slice(3, -1).every((line) => line.includes("· active ·"))).toBe(true);
    const shownSessions = lines.length - 3;
    expect(lines.at(-1)).toBe(
      `… ${400 - shownSessions} more sessions and ${(19_950 - (text.match(/src\/s\d+\//g)?.length ?? 0)).toLocaleString("en-US")} more claims not shown. A claim of a held path is refused naming its holder; a person sees every session and claim in /sessions.`,
    );
    expect(summary).toBe("399 active sessions · 19,950 claims");
    // The details keep what the text shows, not the whole store.
    expect(JSON.stringify(data).length).toBeLessThan(4 * statusTextCharsMax);
  });

  it("a few sessions and claims: every one shown, no closing line", () => {
    const sessions = [row(0, 2, { self: true }), row(1, 1), row(2, 0, { state: "gone" })];
    const lines = statusText(view(sessions)).text.split("\n");
    expect(lines).toHaveLength(5);
    expect(lines.at(-1)).toBe("- s0002 (0190a1a1-0002) · gone: its process ended; its label and paths are free");
    expect(lines[3]).toMatch(
      /^- s0001 \(0190a1a1-0001\) · active · next turn · 0 unread · claims: src\/s1\/p+\/00000\.ts$/,
    );
  });

  it("a session's claims past the budget are counted on its row: 'and N more', or the count alone", () => {
    const sessions = [row(0, 400, { self: true }), row(1, 300)];
    const lines = statusText(view(sessions)).text.split("\n");
    expect(lines[2]).toMatch(/ and \d+ more$/);
    expect(lines[3]).toMatch(/ · 300 claims, not shown$/);
    expect(lines[4]).toMatch(/^… \d+ more claims not shown\./);
  });

  it("through the tool: two sessions of 64 claims of 160-character paths stay within the budget", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    // A claim's file name holds at most 255 bytes: 160 characters a path, 20,000 in all.
    const paths = (who: string) =>
      Array.from({ length: 64 }, (_, k) => `${who}/${"d".repeat(150)}/${String(k).padStart(3, "0")}.ts`);
    await alice.tool({ action: "claim", paths: paths("a") });
    await bob.tool({ action: "claim", paths: paths("b") });
    const text = textOf(await alice.tool({ action: "status" }));
    expect(text.length).toBeLessThanOrEqual(statusTextCharsMax);
    expect(text).toMatch(/\n… \d+ more claims not shown\./);
  });
});

/** One message as a notice announces it. */
function announced(
  id: string,
  from: string,
  fromLabel: string,
  kind: "message" | "ask" | "event" | "handoff",
  preview: string,
  paths: string[] = [],
) {
  return { id, from, fromLabel, kind, preview, clipped: false, paths };
}

/** A wake notice of these messages, none a handoff. */
function wakeNotice(messages: ReturnType<typeof announced>[]) {
  return { delivery: "wake" as const, seq: 1, messages, handoffs: 0 };
}

describe("ids are shown as their shortest unique prefix", () => {
  it("status, join and send name sessions of one minute by the prefix that tells them apart", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    const carol = await sandbox.started(ids.carol);
    await bob.tool({ action: "join", label: "integrator" });
    await carol.tool({ action: "join", label: "verify" });
    expect(textOf(await alice.tool({ action: "join", label: "lead" }))).toBe(
      "On the bus as lead (0190a1a1); next turn: new mail is reported with the next prompt. Pi's session name is now lead. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).",
    );
    const status = textOf(await alice.tool({ action: "status" }));
    expect(status.split("\n")).toEqual([
      "This session: lead (0190a1a1-7), listening: next turn.",
      "Sessions (3 active):",
      "- lead (this session) · active · next turn · 0 unread · no claims",
      "- integrator (0190a1a1-809c) · active · next turn · 0 unread · no claims",
      "- verify (0190a1a1-809d) · active · next turn · 0 unread · no claims",
    ]);
    // After the status read, the send knows carol's id too: bob's prefix is kept apart from it.
    expect(textOf(await alice.tool({ action: "send", to: "integrator", text: "hi" }))).toBe(
      "Sent message to integrator (0190a1a1-809c).",
    );
    // A bus ask says that nothing waits for its answer, and names the tool that does wait.
    expect(textOf(await alice.tool({ action: "send", to: "verify", kind: "ask", text: "port?" }))).toBe(
      "Sent ask to verify (0190a1a1-809d).\nA bus ask does not wait: an answer, if one comes, arrives in your bus inbox like any message. To wait for an answer, ask with session_mail_ask (the mailbox) instead.",
    );
    const inbox = textOf(await bob.tool({ action: "inbox" }));
    // bob knows his own id: alice's prefix is kept apart from it.
    expect(inbox).toMatch(/^message from lead \(0190a1a1-7\)\n {2}hi$/);
    expect(`${status}${inbox}`).not.toMatch(uuid);
  });

  it("a notice names its sender by label and short id, never the full UUID", () => {
    const notice = wakeNotice([announced("m1", ids.bob, "integrator", "message", "ready?")]);
    const { content } = noticeContent(notice, (id) => id.slice(0, 13));
    expect(content).toContain("message from integrator (0190a1a1-809c)\n  ready?");
    expect(content).not.toMatch(uuid);
  });
});

describe("the collapsed notice shows who wrote and the first line, not the id", () => {
  it("collapsed: the sender's label and the first line of the text", async () => {
    const alice = await sandbox.started(ids.alice);
    const notice = wakeNotice([
      announced("m1", ids.bob, "integrator", "ask", "\nis src/api free?\nI need it next", ["src/api"]),
      announced("m2", ids.carol, "verify", "event", "tests green"),
    ]);
    const { content, details } = noticeContent(notice);
    const render = alice.pi.renderers.get("session-bus");
    const lines = render?.({ content, details } as never, { expanded: false, outputPad: 0 } as never, theme as never);
    const shown = (lines?.render(100) ?? []).map((line) => line.trim()).filter((line) => line !== "");
    expect(shown).toEqual(["bus · 2 new messages on the bus", "integrator: is src/api free? (and 1 more)"]);
  });
});

describe("leaving the bus with claims says so", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("rpc: a /new that releases claims tells the person which", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "claim", paths: ["src/api", "README.md"] });
    await alice.shutdown("new");
    expect(alice.context.notices).toContainEqual({
      text: "session-bus: this session left the bus and released 2 claims: README.md, src/api. Other sessions may claim them now.",
      level: "info",
    });
    expect(sandbox.claims()).toEqual([]);
  });

  it("rpc: a /new with unread bus mail says how much and from whom, and tells the live sender", async () => {
    const alice = await sandbox.started(ids.alice);
    const bob = await sandbox.started(ids.bob);
    await alice.tool({ action: "join", label: "lead" });
    await bob.tool({ action: "join", label: "integrator" });
    await bob.tool({ action: "send", to: "lead", text: "is the API done?" });
    await alice.shutdown("new");
    expect(alice.context.notices).toContainEqual({
      text: "session-bus: this session left the bus with 1 unread message from integrator; told integrator. They stay in its inbox until the message TTL.",
      level: "info",
    });
    const told = textOf(await bob.tool({ action: "inbox" }));
    expect(told).toContain('lead left the bus with 1 of your messages unread: "is the API done?".');
  });

  it("tui: /new tells it in the session that follows (the TUI clears its chat to show that one)", async () => {
    const alice = await sandbox.started(ids.alice, { mode: "tui" });
    await alice.tool({ action: "claim", paths: ["src/api"] });
    await alice.shutdown("new");
    alice.pi.invalidate();
    const fresh = sandbox.session(ids.bob, { mode: "tui" });
    await fresh.start("new");
    expect(fresh.context.notices).toContainEqual({
      text: "session-bus: this session left the bus and released 1 claim: src/api. Other sessions may claim them now.",
      level: "info",
    });
  });

  it("tui: a quit, after Pi stopped the TUI, writes it to the terminal; nothing is said without claims", async () => {
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown) => {
      written.push(String(chunk));
      return true;
    });
    const alice = await sandbox.started(ids.alice, { mode: "tui" });
    const bob = await sandbox.started(ids.bob, { mode: "tui" });
    await alice.tool({ action: "claim", paths: ["src/api"] });
    await bob.tool({ action: "join" });
    await alice.shutdown("quit");
    await bob.shutdown("quit");
    expect(written).toEqual([
      "session-bus: this session left the bus and released 1 claim: src/api. Other sessions may claim them now.\n",
    ]);
  });

  it("a reload keeps the claims and says nothing", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "claim", paths: ["src/api"] });
    await alice.shutdown("reload");
    expect(alice.context.notices.filter((n) => n.text.includes("released"))).toEqual([]);
  });
});
