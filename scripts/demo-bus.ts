// The demo's second part: the coordination bus (session-bus). Three real Pi sessions (RPC mode, the
// offline scripted model) in one temporary git repository, one of them in a linked worktree, join
// under labels, claim paths (one claim refused, naming its owner, and one edit refused), send an event
// to everyone and a handoff that wakes the session it assigns and moves the claim it offers; the
// transcript says who did what and what `status` showed.
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { contentText, isObject, type RpcRecord, toolEnd } from "../test/e2e/harness/rpc-records.js";
import { e2ePaths, type PiSession, type Sandbox, startPi } from "../test/e2e/harness/rpc-session.js";
import { check, say } from "./demo-log.js";

const stepTimeoutMs = 30_000;

// Ids whose first eight characters tell the sessions apart, so the transcript can shorten them.
const sessions = {
  builder: { id: "b11de700-0000-7000-8000-00000000b11d", folder: "repo" },
  tester: { id: "7e57e700-0000-7000-8000-000000007e57", folder: "repo" },
  writer: { id: "d0c5e700-0000-7000-8000-00000000d0c5", folder: "repo-docs" },
} as const;
type Label = keyof typeof sessions;

/** writer's Pi name: spaces and an emoji, so its bus label is derived from it. */
const writerName = "Docs Writer 📝";

const uuid = /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;

/** Session and message ids shortened to their first eight characters, the sandbox folder to `<tmp>`. */
function shorten(text: string, sandbox: Sandbox): string {
  return text.replaceAll(sandbox.root, "<tmp>").replace(uuid, "$1…");
}

function git(cwd: string, sandbox: Sandbox, ...args: string[]): void {
  const env = { PATH: "/usr/bin:/bin", HOME: sandbox.home, GIT_CONFIG_NOSYSTEM: "1" };
  const identity = ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid", "-c", "init.defaultBranch=main"];
  execFileSync("git", [...identity, ...args], { cwd, env, stdio: "ignore", timeout: 10_000 });
}

/** `<tmp>/cwd/repo` with one commit, and `<tmp>/cwd/repo-docs`, its linked worktree on branch docs. */
function makeRepository(sandbox: Sandbox): void {
  const repo = sandbox.cwdFor("repo");
  for (const [path, text] of [
    ["src/api/server.ts", "export const port = 8080;\n"],
    ["docs/guide.md", "# Guide\n"],
    ["test/server.test.ts", "// tests\n"],
  ] as const) {
    mkdirSync(join(repo, path, ".."), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  git(repo, sandbox, "init", "-q");
  git(repo, sandbox, "add", ".");
  git(repo, sandbox, "commit", "-q", "-m", "start");
  git(repo, sandbox, "worktree", "add", "-q", "-b", "docs", join(sandbox.root, "cwd", "repo-docs"));
}

interface Call {
  text: string;
  isError: boolean;
}

/** What a woken run (no prompt) did, once it settled. */
interface WokenRun {
  notice: string;
  prompted: boolean;
  records: readonly RpcRecord[];
}

function customText(record: RpcRecord, customType: string): string | undefined {
  if (record.type !== "message_end" || !isObject(record.message)) return undefined;
  const message = record.message;
  return message.role === "custom" && message.customType === customType ? contentText(message.content) : undefined;
}

export async function runBusDemo(sandbox: Sandbox): Promise<void> {
  makeRepository(sandbox);
  const pis = new Map<Label, PiSession>();
  const pi = (label: Label) => pis.get(label)!;
  const show = (who: string, text: string) => say(who, shorten(text, sandbox));

  /** The session's model calls the `session` tool (the scripted model obeys a `CALL_TOOL` line). */
  const call = async (who: Label, args: Record<string, unknown>): Promise<Call> => {
    const { action, ...rest } = args;
    show(who, `session ${String(action)} ${JSON.stringify(rest)}`);
    const run = await pi(who).prompt(`CALL_TOOL session ${JSON.stringify(args)}`, stepTimeoutMs);
    const end = run.records.map(toolEnd).find((e) => e?.toolName === "session");
    const result = { text: end?.text ?? "(no tool result)", isError: end?.isError ?? true };
    show("", `${result.isError ? "✗ refused: " : "→ "}${result.text}`);
    return result;
  };

  /** The session's model calls one of Pi's own tools (edit, write). */
  const tool = async (who: Label, name: string, args: Record<string, unknown>): Promise<Call> => {
    show(who, `${name} ${JSON.stringify(args)}`);
    const run = await pi(who).prompt(`CALL_TOOL ${name} ${JSON.stringify(args)}`, stepTimeoutMs);
    const end = run.records.map(toolEnd).find((e) => e?.toolName === name);
    const result = { text: end?.text ?? "(no tool result)", isError: end?.isError ?? true };
    show("", `${result.isError ? "✗ refused: " : "→ "}${result.text}`);
    return result;
  };

  const status = async (who: Label): Promise<string> => {
    const run = await pi(who).prompt('CALL_TOOL session {"action":"status"}', stepTimeoutMs);
    const text = run.records.map(toolEnd).find((e) => e?.toolName === "session")?.text ?? "";
    show(who, `session status →\n${text}`);
    return text;
  };

  /** Waits for a run that `who` starts by itself (a wake), and for it to settle. */
  const woken = async (who: Label, since: number): Promise<WokenRun> => {
    const session = pi(who);
    const start = await session.waitFor((r) => r.type === "agent_start", stepTimeoutMs, { since });
    const from = session.events.indexOf(start, since);
    const settled = await session.waitFor((r) => r.type === "agent_settled", stepTimeoutMs, { since: from });
    const records = session.events.slice(from, session.events.indexOf(settled, from) + 1);
    const message = records.find((r) => r.type === "message_end" && isObject(r.message));
    const role = isObject(message?.message) ? message.message.role : undefined;
    const notice = records.map((r) => customText(r, "session-bus")).find((t) => t !== undefined) ?? "";
    return { notice, prompted: role === "user", records };
  };

  try {
    say("demo", "part 2, session-bus: sessions on one repository join under labels, claim paths, message each other");
    say("demo", "a git repository <tmp>/cwd/repo and its linked worktree <tmp>/cwd/repo-docs (branch docs)");
    for (const [label, s] of Object.entries(sessions) as [Label, (typeof sessions)[Label]][]) {
      // writer has a Pi name that cannot be a label: it joins under the label derived from it.
      const name = label === "writer" ? { name: writerName } : {};
      pis.set(
        label,
        startPi({ sandbox, sessionId: s.id, cwdFolder: s.folder, extensions: [e2ePaths.repoRoot], ...name }),
      );
    }
    await Promise.all([...pis.values()].map((s) => s.request({ type: "get_state" }, stepTimeoutMs)));
    say(
      "demo",
      `three more Pi sessions: builder and tester in repo, writer ("${writerName}") in repo-docs (ids shortened below)`,
    );

    // 1. Joining: an explicit label, and for builder, a turn raised by new mail (wake).
    await call("builder", { action: "join", label: "builder", wake: true });
    await call("tester", { action: "join", label: "tester" });
    const derived = await call("writer", { action: "join" });
    check(derived.text.includes("docs-writer"), `writer joined under the label derived from its Pi name: docs-writer`);

    // 2. Claims: paths are relative to the worktree's top, so writer's claim meets builder's.
    await call("builder", { action: "claim", paths: ["src/api"] });
    const refused = await call("writer", { action: "claim", paths: ["src/api/health.ts"] });
    check(
      refused.isError && refused.text.includes("builder"),
      "writer's overlapping claim was refused, naming builder",
    );
    await call("writer", { action: "claim", paths: ["docs"] });
    await call("tester", { action: "claim", paths: ["test"] });
    await status("writer");

    // 3. An event to everyone: builder (wake) gets a turn at once; tester hears of it with its next prompt.
    let since = pi("builder").mark();
    const testerSince = pi("tester").mark();
    const event = { action: "send", to: "*", kind: "event", text: "Docs now build from docs/ on branch docs." };
    await call("writer", event);
    const eventRun = await woken("builder", since);
    show("builder", `woke with no prompt; its model read: ${eventRun.notice.split("\n")[0]}`);
    const testerWoke = pi("tester")
      .events.slice(testerSince)
      .some((r) => r.type === "agent_start");
    check(!eventRun.prompted && !testerWoke, "the event woke builder (wake) at once, and not tester (next turn)");
    show("tester", "(user types) Anything new?");
    const next = await pi("tester").prompt("Anything new?", stepTimeoutMs);
    const report = next.records.map((r) => customText(r, "session-bus")).find((t) => t !== undefined) ?? "";
    show("", `→ the bus added its report to the prompt: ${report.split("\n")[0]}`);
    check(report.includes("1 new message"), "tester heard of the event with its next prompt, not before");

    // 4. A claim holds at the model's edit: writer's edit of a file under builder's claim is refused.
    const blocked = await tool("writer", "edit", {
      path: "src/api/server.ts",
      edits: [{ oldText: "8080", newText: "9090" }],
    });
    check(
      blocked.isError && blocked.text.startsWith("Blocked: src/api/server.ts") && blocked.text.includes("builder"),
      "writer's edit of a file builder claimed was refused before it ran, naming builder",
    );

    // 5. Git is guarded too: tester's `git stash` would take builder's unsaved change with it.
    await tool("builder", "edit", { path: "src/api/server.ts", edits: [{ oldText: "8080", newText: "9090" }] });
    const stashed = await tool("tester", "bash", { command: "git stash" });
    check(
      stashed.isError && stashed.text.startsWith("Blocked: `git stash`") && stashed.text.includes("builder"),
      "tester's git stash was refused: it would have stashed builder's unsaved change",
    );

    // 6. A handoff assigns work and offers the claims it names; the recipient's accept moves them.
    say("demo", "(the handoff's last line is for the offline model; a real one follows the notice: read the inbox)");
    since = pi("builder").mark();
    const handoff =
      'Write the tests for GET /health in test/: they are yours now.\nCALL_TOOL session {"action":"inbox"}';
    await call("tester", { action: "send", to: "builder", kind: "handoff", text: handoff, paths: ["test"] });
    const handoffRun = await woken("builder", since);
    show("builder", `woke with no prompt: ${handoffRun.notice.split("\n")[0]}`);
    const inbox = handoffRun.records.map(toolEnd).find((e) => e?.toolName === "session");
    show("builder", `its model called session inbox →\n${inbox?.text ?? "(no inbox call)"}`);
    check(
      !handoffRun.prompted &&
        handoffRun.notice.includes("1 handoff") &&
        (inbox?.text ?? "").includes("Write the tests"),
      "the handoff woke builder (no prompt), which read it with inbox",
    );
    const offer = /id:"([0-9a-f-]+)"/.exec(inbox?.text ?? "")?.[1] ?? "";
    const taken = await call("builder", { action: "accept", id: offer });
    check(
      !taken.isError && taken.text.startsWith("Took test from tester"),
      "builder accepted: the claim on test moved",
    );
    const after = await tool("tester", "write", { path: "test/server.test.ts", content: "// mine\n" });
    check(
      after.isError && after.text.includes("builder"),
      "tester's own write to test/ is now refused: builder holds it",
    );

    // 7. What status shows now, from the other two.
    const shown = [await status("tester"), await status("builder")];
    const rows = ["- builder", "- tester", `- ${writerName} (bus: docs-writer)`];
    check(
      shown.every((text) => rows.every((row) => text.includes(row)) && text.includes("· idle ·")),
      "status lists all three sessions (writer's Pi name beside its label), busy or idle, listening, unread mail and claims",
    );

    // 8. One switchboard: mail reaches writer by its bus label; the mail listing shows the bus's facts;
    // a label another running session is called is refused, naming it.
    const mailed = await tool("builder", "session_mail_send", { to: "docs-writer", message: "The API moved to 9090." });
    check(
      !mailed.isError && mailed.text.includes(sessions.writer.id),
      "mail to the bus label docs-writer reached writer",
    );
    const listed = await tool("tester", "session_mail_list", {});
    check(
      listed.text.includes(`${writerName} (bus: docs-writer)`) && listed.text.includes("bus: 1 claim"),
      "session_mail_list shows writer's label beside its name, and each session's bus claims and listening",
    );
    const namesake = await call("tester", { action: "join", label: "builder" });
    check(
      namesake.isError && namesake.text.includes("taken by the running session builder (id b11de700…)"),
      "tester's join under builder's name was refused, naming builder and its id prefix",
    );

    // 9. One loop guard: builder and writer both wake for bus mail, and their models answer every
    // message with another to everyone. Unguarded they would wake each other until someone stops
    // one; at hopLimit (3 here, in session-mail.json, one setting for mail and the bus) it ends.
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `${JSON.stringify({ hopLimit: 3 })}\n`);
    await call("writer", { action: "join", wake: true });
    say("demo", "(each woken model answers with an event to everyone: a loop, unless something stops it)");
    const marks = { builder: pi("builder").mark(), writer: pi("writer").mark() };
    const heldAt = (who: "builder" | "writer") =>
      pi(who).waitFor(
        (r) => r.type === "extension_ui_request" && String(r.message ?? "").includes("did not wake this session"),
        stepTimeoutMs,
        { since: marks[who] },
      );
    show("tester", "(user types) BUS_BOUNCE");
    await pi("tester").prompt("BUS_BOUNCE", stepTimeoutMs);
    const stopped = await Promise.any([heldAt("builder"), heldAt("writer")]);
    show("", `→ ${String(stopped.message)}`);
    const wokeCount = (who: "builder" | "writer") =>
      pi(who)
        .events.slice(marks[who])
        .filter((r) => r.type === "agent_start").length;
    show("", `builder woke ${wokeCount("builder")} times, writer ${wokeCount("writer")} times`);
    check(
      String(stopped.message).includes("3 hops into a chain of sessions waking each other"),
      "two wake sessions answering every message stopped at the hop limit, and the person was told why",
    );

    for (const session of pis.values()) await session.close();
    const root = join(sandbox.agentDir, "session-bus");
    const left = readdirSync(root).flatMap((repo) => readdirSync(join(root, repo, "sessions")));
    check(left.length === 0, "every bus session record was removed at shutdown");
  } finally {
    for (const session of pis.values()) await session.close();
  }
}
