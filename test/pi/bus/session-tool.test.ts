// The `session` tool through its execute, as Pi runs it: each action's model text and details
// (summary, result), the implicit join and its `session-label`, an explicit label as Pi's session
// name, and refusals thrown with the describer's words, writing nothing.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentToolResult } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";
import { type BusSession, ids, textOf, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();

interface Details {
  action: string;
  summary: string;
  result: Record<string, unknown>;
}

function detailsOf(result: AgentToolResult<unknown>): Details {
  const details = result.details as Details | undefined;
  if (details === undefined) throw new Error("the tool result has no details");
  return details;
}

/** alice and bob started in the repository; bob joined as integrator. */
async function pair(): Promise<{ alice: BusSession; bob: BusSession }> {
  const alice = await sandbox.started(ids.alice);
  const bob = await sandbox.started(ids.bob);
  await bob.tool({ action: "join", label: "integrator" });
  return { alice, bob };
}

/** A pid that no process has now: a child that ran and was reaped. */
function deadPid(): number {
  const child = spawnSync("true");
  if (child.pid === undefined || child.pid <= 0) throw new Error("no child pid");
  return child.pid;
}

describe("status", () => {
  it("before any join: says this session is not on the bus, lists nobody, and joins nothing", async () => {
    const alice = await sandbox.started(ids.alice);
    const result = await alice.tool({ action: "status" });
    expect(textOf(result)).toBe(
      "This session is not on the bus: it joins with join, or at its first send, inbox, claim or release.\nSessions (0 active):\nNobody has joined the bus on this repository.",
    );
    expect(detailsOf(result)).toMatchObject({
      action: "status",
      summary: "0 active sessions · 0 claims",
      result: {
        self: { id: ids.alice, joined: false, listening: "off" },
        sessions: [],
        offers: [],
        unreadableRecords: 0,
      },
    });
    expect(sandbox.records()).toEqual([]);
    expect(alice.labels).toEqual([]);
  });

  it("lists each active session with listening mode, unread count and claims, marks this one, and names a gone one", async () => {
    const { alice, bob } = await pair();
    const carol = await sandbox.started(ids.carol);
    await carol.tool({ action: "join", label: "verify", wake: true });
    await alice.tool({ action: "claim", paths: ["src/api"] });
    await bob.tool({ action: "send", to: "verify", text: "ready?" });
    const result = await alice.tool({ action: "status" });
    expect(textOf(result).split("\n")).toEqual([
      "This session: repo (0190a1a1-7), listening: next turn.",
      "Sessions (3 active):",
      "- repo (this session) · active · next turn · 0 unread · claims: src/api",
      "- integrator (0190a1a1-809c) · active · next turn · 0 unread · no claims",
      "- verify (0190a1a1-809d) · active · wake · 1 unread · no claims",
    ]);
    expect(detailsOf(result).summary).toBe("3 active sessions · 1 claim");
    // bob's process is gone: his record names a pid nobody has now.
    const record = join(sandbox.busDir() ?? "", "sessions", `${ids.bob}.json`);
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), pid: deadPid() }));
    const after = textOf(await alice.tool({ action: "status" }));
    expect(after).toContain("- integrator (0190a1a1-809c) · gone: its process ended; its label and paths are free");
    expect(after).toContain("Sessions (2 active):");
  });
});

describe("join", () => {
  it("a plain join takes the derived label (the repository folder), listens at the next turn, and leaves Pi's name alone", async () => {
    const alice = await sandbox.started(ids.alice);
    const result = await alice.tool({ action: "join" });
    expect(textOf(result)).toBe(
      "On the bus as repo (0190a1a1); next turn: new mail is reported with the next prompt. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).",
    );
    expect(detailsOf(result)).toEqual({
      action: "join",
      summary: "joined as repo · next turn",
      result: {
        id: ids.alice,
        label: "repo",
        previousLabel: undefined,
        named: false,
        listening: true,
        wake: false,
        observing: true,
      },
    });
    expect(alice.pi.name).toBeUndefined();
    expect(alice.labels).toEqual([{ id: ids.alice, label: "repo" }]);
    expect(sandbox.records()).toEqual([
      expect.objectContaining({ id: ids.alice, label: "repo", armed: true, wake: false }),
    ]);
  });

  it("a label becomes Pi's session name; a relabel says what it was; wake and listen set the mode on every join", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "join" });
    const named = await alice.tool({ action: "join", label: "billing-core", wake: true });
    expect(textOf(named)).toBe(
      `On the bus as billing-core (was repo) (0190a1a1); wake: new mail raises a turn as soon as this session is idle. Pi's session name is now billing-core. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    expect(detailsOf(named).summary).toBe("joined as billing-core · wake");
    expect(alice.pi.name).toBe("billing-core");
    const quiet = await alice.tool({ action: "join", listen: false });
    expect(textOf(quiet)).toBe(
      `On the bus as billing-core (0190a1a1); not listening: mail waits in the inbox until session inbox reads it. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    expect(detailsOf(quiet).summary).toBe("joined as billing-core · not listening");
    // Every join is announced, a relabel or not.
    expect(alice.labels).toEqual([
      { id: ids.alice, label: "repo" },
      { id: ids.alice, label: "billing-core" },
      { id: ids.alice, label: "billing-core" },
    ]);
    expect(sandbox.records()).toEqual([expect.objectContaining({ label: "billing-core", armed: false, wake: false })]);
  });

  it("a label a live session holds is refused naming its id; names, record and label stay as they were", async () => {
    const { alice } = await pair();
    await alice.tool({ action: "join", label: "billing-core" });
    alice.labels.length = 0;
    expect(await alice.refusal({ action: "join", label: "integrator" })).toBe(
      `The label integrator is taken by the running session integrator (id ${ids.bob.slice(0, 10)}…); nothing was changed. Join under another label, or without one for a derived label.`,
    );
    expect(alice.pi.name).toBe("billing-core");
    expect(alice.labels).toEqual([]);
    expect(
      sandbox
        .records()
        .map((r) => r.label)
        .sort(),
    ).toEqual(["billing-core", "integrator"]);
  });

  it("a label outside the syntax is refused, not rewritten, and nothing joins", async () => {
    const alice = await sandbox.started(ids.alice);
    expect(await alice.refusal({ action: "join", label: "Billing Core" })).toBe(
      '"Billing Core" is not a label: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most 64 characters.',
    );
    expect(alice.pi.name).toBeUndefined();
    expect(sandbox.records()).toEqual([]);
  });
});

describe("send", () => {
  it("the first send joins under the derived label (suffixed when taken), emits session-label, and renames nothing", async () => {
    const { alice } = await pair();
    const carol = await sandbox.started(ids.carol);
    await carol.tool({ action: "join" });
    const result = await alice.tool({ action: "send", to: "integrator", text: "API ready", paths: ["src/api"] });
    const { summary, result: report } = detailsOf(result);
    expect(textOf(result)).toBe("Sent message about src/api to integrator (0190a1a1-8).");
    expect(summary).toBe("message → integrator");
    expect(report).toMatchObject({ kind: "message", paths: ["src/api"], failed: [] });
    expect(report.delivered).toEqual([expect.objectContaining({ id: ids.bob, label: "integrator" })]);
    // carol took "repo" first: alice's derived label ends with her id's last four hex digits.
    expect(alice.labels).toEqual([{ id: ids.alice, label: "repo-a11c" }]);
    expect(alice.pi.name).toBeUndefined();
    expect(sandbox.inbox(ids.bob)).toHaveLength(1);
  });

  it("an event to * reaches every other active session; alone, it is refused", async () => {
    const { alice, bob } = await pair();
    const carol = await sandbox.started(ids.carol);
    await carol.tool({ action: "join", label: "verify" });
    const result = await alice.tool({ action: "send", to: "*", kind: "event", text: "contract v2" });
    expect(detailsOf(result).summary).toBe("event → integrator, verify");
    expect(sandbox.inbox(ids.bob)).toHaveLength(1);
    expect(sandbox.inbox(ids.carol)).toHaveLength(1);
    expect(sandbox.inbox(ids.alice)).toHaveLength(0);
    await bob.shutdown();
    await carol.shutdown();
    expect(await alice.refusal({ action: "send", to: "*", kind: "event", text: "anyone?" })).toBe(
      "No other active session to send to.",
    );
  });

  it("a partial fan-out names who was missed and still succeeds; reaching nobody is an error", async () => {
    const { alice } = await pair();
    const carol = await sandbox.started(ids.carol);
    await carol.tool({ action: "join", label: "verify" });
    // bob's inbox is a file now: no message can be written there.
    const inbox = join(sandbox.busDir() ?? "", "inbox", ids.bob);
    rmSync(inbox, { recursive: true, force: true });
    writeFileSync(inbox, "");
    const result = await alice.tool({ action: "send", to: "*", kind: "event", text: "contract v2" });
    expect(textOf(result)).toMatch(
      /^Sent event to verify \(0190a1a1-809d\)\.\nNot delivered to: integrator \(0190a1a1-809c: .+\)\. Ask them again; do not repeat this send \(the others would get it twice\)\.$/,
    );
    expect(detailsOf(result).summary).toBe("event → verify (missed 1)");
    expect(detailsOf(result).result.failed).toEqual([expect.objectContaining({ id: ids.bob, label: "integrator" })]);
    expect(await alice.refusal({ action: "send", to: "integrator", text: "just you" })).toMatch(
      /^Not delivered to anyone: integrator \(.+\)\.$/,
    );
  });

  it("a claim refused for a live holder's path leaves a session that was not on the bus off it", async () => {
    const { alice, bob } = await pair();
    await bob.tool({ action: "claim", paths: ["src/api"] });
    expect(await alice.refusal({ action: "claim", paths: ["src/api/routes.ts", "docs"] })).toMatch(
      /^Nothing claimed: src\/api\/routes\.ts overlaps src\/api, claimed by integrator\.$/,
    );
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    expect(sandbox.claims()).toEqual([expect.stringMatching(/^src%2Fapi~/)]);
    expect(alice.labels).toEqual([]);
    // A claim that can go ahead joins as before.
    expect(textOf(await alice.tool({ action: "claim", paths: ["docs"] }))).toBe("Claimed docs.");
    expect(
      sandbox
        .records()
        .map((r) => r.id)
        .sort(),
    ).toEqual([ids.alice, ids.bob].sort());
  });

  it("refusals say why and write nothing: the broadcast of a message, missing or empty text, oneself, nobody, a gone peer", async () => {
    const { alice, bob } = await pair();
    expect(await alice.refusal({ action: "send", to: "*", text: "hi all" })).toBe(
      'to "*" is for kind event only (this send is kind message).',
    );
    expect(await alice.refusal({ action: "send", to: "integrator" })).toBe("Missing text: nothing was done.");
    expect(await alice.refusal({ action: "send", text: "hi" })).toBe("Missing to: nothing was done.");
    expect(await alice.refusal({ action: "send", to: "integrator", text: "  \n" })).toBe(
      "The message is empty: nothing was sent.",
    );
    expect(await alice.refusal({ action: "send", to: "integrator", text: "x".repeat(4_001) })).toBe(
      "The message is 4001 characters; the limit is 4000. Nothing was sent.",
    );
    expect(await alice.refusal({ action: "send", to: "integrator", text: "hi", paths: ["../elsewhere"] })).toBe(
      'path "../elsewhere" is outside the repository.',
    );
    expect(await alice.refusal({ action: "send", to: "nobody", text: "hi" })).toBe(
      'No active session is called "nobody".',
    );
    expect(await alice.refusal({ action: "send", to: ids.alice, text: "hi" })).toBe(
      "That is this session: nothing was sent.",
    );
    // None of those joined alice (the first send joins only when it sends) or wrote a message.
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    expect(alice.labels).toEqual([]);
    expect(sandbox.inbox(ids.bob)).toEqual([]);
    expect(await bob.refusal({ action: "send", to: "integrator", text: "me" })).toBe(
      "That is this session: nothing was sent.",
    );
    const record = join(sandbox.busDir() ?? "", "sessions", `${ids.bob}.json`);
    writeFileSync(record, JSON.stringify({ ...JSON.parse(readFileSync(record, "utf8")), pid: deadPid() }));
    expect(await alice.refusal({ action: "send", to: "integrator", text: "hi" })).toBe(
      `no active session: integrator (${ids.bob}) is gone, so nothing was sent.`,
    );
    expect(sandbox.inbox(ids.bob)).toEqual([]);
  });
});

describe("inbox", () => {
  it("consumes the mail oldest first, shows each row, and says when nothing is left", async () => {
    const { alice, bob } = await pair();
    await alice.tool({ action: "join", label: "billing-core" });
    await bob.tool({ action: "send", to: "billing-core", text: "first" });
    await bob.tool({ action: "claim", paths: ["src/api"] });
    await bob.tool({
      action: "send",
      to: "billing-core",
      kind: "handoff",
      text: "second\nline two",
      paths: ["src/api"],
    });
    const result = await alice.tool({ action: "inbox" });
    const text = textOf(result);
    expect(text.indexOf("first")).toBeLessThan(text.indexOf("second"));
    expect(text).toContain("  second\n  line two");
    expect(detailsOf(result)).toMatchObject({ action: "inbox", summary: "2 messages", result: { more: 0 } });
    expect(detailsOf(result).result.rows).toHaveLength(2);
    // Set aside until the session has recorded the result; the next read deletes them.
    expect(sandbox.inbox(ids.alice)).toEqual([".shown"]);
    const rows = detailsOf(result).result.rows as { message: { id: string } }[];
    expect(detailsOf(result)).toMatchObject({ ids: rows.map((row) => row.message.id) });
    const again = await alice.tool({ action: "inbox" });
    expect(textOf(again)).toBe("No unread mail.");
    expect(detailsOf(again).summary).toBe("0 messages");
    expect(sandbox.inbox(`${ids.alice}/.shown`)).toEqual([]);
  });

  it("a limit leaves the rest, named in one `… N more` line; the first inbox joins implicitly", async () => {
    const { alice, bob } = await pair();
    await alice.tool({ action: "join", label: "billing-core" });
    for (const n of [1, 2, 3]) await bob.tool({ action: "send", to: "billing-core", text: `note ${n}` });
    const result = await alice.tool({ action: "inbox", limit: 2 });
    expect(textOf(result).split("\n").at(-1)).toBe("… 1 more");
    expect(detailsOf(result).summary).toBe("2 messages (+1 more)");
    expect(sandbox.inbox(ids.alice).filter((name) => !name.startsWith("."))).toHaveLength(1);
    const carol = await sandbox.started(ids.carol);
    expect(textOf(await carol.tool({ action: "inbox" }))).toBe("No unread mail.");
    expect(carol.labels).toEqual([{ id: ids.carol, label: "repo" }]);
  });
});

describe("claim and release", () => {
  it("claims and releases paths by repository-relative key; the first claim joins implicitly", async () => {
    const alice = await sandbox.started(ids.alice);
    mkdirSync(join(sandbox.repo, "src", "api"), { recursive: true });
    const claimed = await alice.tool({ action: "claim", paths: ["src/api", join(sandbox.repo, "README.md")] });
    expect(textOf(claimed)).toBe("Claimed src/api, README.md.");
    expect(detailsOf(claimed)).toEqual({
      action: "claim",
      summary: "claimed src/api, README.md",
      result: { claimed: ["src/api", "README.md"], alreadyHeld: [] },
    });
    expect(alice.labels).toEqual([{ id: ids.alice, label: "repo" }]);
    expect(sandbox.claims()).toHaveLength(2);
    expect(textOf(await alice.tool({ action: "claim", paths: ["src/api"] }))).toBe(
      "Nothing new to claim. Already held: src/api.",
    );
    const released = await alice.tool({ action: "release", paths: ["src/api", "docs"] });
    expect(textOf(released)).toBe("Released src/api. Not claimed: docs.");
    expect(detailsOf(released)).toMatchObject({ action: "release", summary: "released 1 path" });
    expect(sandbox.claims()).toHaveLength(1);
  });

  it("a session whose cwd came through a link claims an absolute path written the way its cwd spells it", async () => {
    mkdirSync(join(sandbox.repo, "src"), { recursive: true });
    writeFileSync(join(sandbox.repo, "src", "a.ts"), "");
    const link = join(sandbox.dir, "repo-link");
    symlinkSync(sandbox.repo, link);
    const alice = await sandbox.started(ids.alice, { cwd: link });
    expect(textOf(await alice.tool({ action: "claim", paths: [join(link, "src", "a.ts")] }))).toBe("Claimed src/a.ts.");
    const bob = await sandbox.started(ids.bob);
    await expect(bob.tool({ action: "claim", paths: ["src/a.ts"] })).rejects.toThrow(/src\/a\.ts/);
  });

  it("a claim that collides is refused whole, naming the owner; a peer's claim is not released", async () => {
    const { alice, bob } = await pair();
    await bob.tool({ action: "claim", paths: ["src/api"] });
    expect(await alice.refusal({ action: "claim", paths: ["docs", "src/api/routes.ts"] })).toBe(
      "Nothing claimed: src/api/routes.ts overlaps src/api, claimed by integrator.",
    );
    expect(sandbox.claims()).toHaveLength(1);
    expect(await alice.refusal({ action: "claim", paths: ["src"] })).toBe(
      "Nothing claimed: src overlaps src/api, claimed by integrator.",
    );
    expect(textOf(await alice.tool({ action: "release", paths: ["src/api"] }))).toBe(
      "src/api is claimed by integrator, not by this session.",
    );
    expect(sandbox.claims()).toHaveLength(1);
  });

  it("refuses the repository itself, a path outside it, and no paths, before joining", async () => {
    const alice = await sandbox.started(ids.alice);
    expect(await alice.refusal({ action: "claim", paths: ["."] })).toBe(
      'path "." is the repository, not a path in it.',
    );
    expect(await alice.refusal({ action: "claim", paths: ["/etc/passwd"] })).toBe(
      'path "/etc/passwd" is outside the repository.',
    );
    expect(await alice.refusal({ action: "claim", paths: [] })).toBe("Missing paths: nothing was done.");
    expect(await alice.refusal({ action: "release" })).toBe("Missing paths: nothing was done.");
    expect(sandbox.records()).toEqual([]);
    expect(sandbox.claims()).toEqual([]);
    expect(alice.labels).toEqual([]);
  });
});

describe("the tool's views", () => {
  it("renderCall sanitizes the arguments it draws: no escape sequence or bidi control reaches the terminal", async () => {
    const alice = await sandbox.started(ids.alice);
    const tool = alice.pi.tools.get("session");
    const theme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s, bold: (s: string) => s };
    const args = { action: "send", to: "peer\u001b]52;c;aGk=\u0007\u202e", text: "x" };
    const drawn =
      tool
        ?.renderCall?.(args, theme as never, {} as never)
        ?.render(80)
        .join("\n") ?? "";
    expect(drawn).toContain("session send peer");
    expect(drawn).not.toMatch(/[\u0000-\u001f\u202e]/);
  });

  it("renderCall draws the action and its target; renderResult is the summary collapsed, every line expanded", async () => {
    const alice = await sandbox.started(ids.alice);
    const tool = alice.pi.tools.get("session");
    const theme = { fg: (_c: string, s: string) => s, bg: (_c: string, s: string) => s, bold: (s: string) => s };
    const call = tool?.renderCall?.({ action: "send", kind: "handoff", to: "integrator" }, theme as never, {} as never);
    expect(call?.render(80).join("\n")).toContain("session send handoff integrator");
    const result = await alice.tool({ action: "status" });
    const view = (expanded: boolean) =>
      tool?.renderResult?.(
        result as never,
        { expanded, isPartial: false },
        theme as never,
        { isError: false } as never,
      );
    expect(
      view(false)
        ?.render(80)
        .map((l) => l.trim()),
    ).toEqual(["0 active sessions · 0 claims"]);
    expect(
      view(true)
        ?.render(200)
        .map((l) => l.trim()),
    ).toEqual(textOf(result).split("\n"));
  });
});
