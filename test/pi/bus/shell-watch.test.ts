// The shell watch as Pi runs it, over Pi's real event bus and real files: past its bound it says how
// many claimed files it did not check; when the claims cannot be read the command's result is left
// alone and the person is warned once; a fault of its own never escapes a handler; a call that got
// no result (blocked, aborted) is forgotten at its end; and a session in a linked worktree is watched
// for the claimed key in its own copy too.
import { execFileSync } from "node:child_process";
import { appendFileSync, mkdirSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shellWatchFilesMax } from "../../../src/domain/bus/limits.js";
import { type BusSession, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();

const ids = {
  lead: "019c0000-0000-7000-8000-00000000a001",
  solo: "019c0000-0000-7000-8000-00000000c003",
};

type Content = Array<{ type: string; text?: string }>;

/** One model `bash` call as Pi runs it: tool_call, the command's effect, tool_result, the end. The
 * text the model reads, or undefined when no handler changed the result. */
async function bash(session: BusSession, id: string, command: string, effect: () => void) {
  const input = { command };
  await session.pi.fire("tool_call", { toolCallId: id, toolName: "bash", input }, session.context);
  effect();
  const content: Content = [{ type: "text", text: "(output)" }];
  const results = (await session.pi.fire(
    "tool_result",
    { toolCallId: id, toolName: "bash", input, content, isError: false, details: undefined },
    session.context,
  )) as Array<{ content?: Content }>;
  await session.pi.fire("tool_execution_end", { toolCallId: id, toolName: "bash" }, session.context);
  return results
    .at(-1)
    ?.content?.map((c) => c.text ?? "")
    .join("\n");
}

async function leadHolding(paths: string[], repo = sandbox.repo): Promise<BusSession> {
  const lead = await sandbox.started(ids.lead, { cwd: repo });
  await lead.tool({ action: "join", label: "lead" });
  await lead.tool({ action: "claim", paths });
  return lead;
}

const warnings = (session: BusSession) =>
  session.context.notices.filter((n) => n.level === "warning").map((n) => n.text);

describe("the shell watch in Pi", () => {
  it("says how many claimed files it did not check past its bound, and still names a change within it", async () => {
    mkdirSync(join(sandbox.repo, "big"));
    for (let i = 0; i < shellWatchFilesMax + 5; i++) writeFileSync(join(sandbox.repo, "big", `f${1000 + i}`), "");
    await leadHolding(["big"]);
    const solo = await sandbox.started(ids.solo);
    const text = await bash(solo, "b1", "echo x >> big/f1000", () =>
      appendFileSync(join(sandbox.repo, "big/f1000"), "x"),
    );
    // The folder is one look of the bound: 2,006 entries, 2,000 looked at.
    expect(text).toContain(`${sandbox.repo}/big/f1000 (changed; claimed by lead`);
    expect(text).toMatch(
      /\n\[session-bus\] 6 claimed files were not checked for changes \(past the watch's limit\)\.$/,
    );
  });

  it("leaves the result alone and warns the person once when the claims cannot be read", async () => {
    mkdirSync(join(sandbox.repo, "src"));
    writeFileSync(join(sandbox.repo, "src/a.ts"), "a\n");
    await leadHolding(["src/a.ts"]);
    const claims = join(sandbox.busDir() ?? "", "claims");
    rmSync(claims, { recursive: true });
    writeFileSync(claims, "not a folder");
    const solo = await sandbox.started(ids.solo);
    for (const id of ["b1", "b2"]) {
      const text = await bash(solo, id, "echo x >> src/a.ts", () =>
        appendFileSync(join(sandbox.repo, "src/a.ts"), "x"),
      );
      expect(text).toBeUndefined();
    }
    expect(warnings(solo)).toHaveLength(1);
    expect(warnings(solo)[0]).toMatch(/^Shell commands are not watched for writes to claimed files: /);
  });

  it("never lets a fault of its own out of a handler: the call runs, the person is told", async () => {
    await leadHolding(["src"]);
    const solo = await sandbox.started(ids.solo);
    const called = await solo.pi.fire("tool_call", { toolCallId: "b1", toolName: "bash", input: null }, solo.context);
    expect(called).toEqual([]);
    expect(warnings(solo)).toContainEqual(
      expect.stringMatching(/^A shell command ran without the watch on claimed files: TypeError/),
    );
  });

  it("forgets a call that ended without a result: nothing is named for it afterwards", async () => {
    mkdirSync(join(sandbox.repo, "src"));
    writeFileSync(join(sandbox.repo, "src/a.ts"), "a\n");
    await leadHolding(["src/a.ts"]);
    const solo = await sandbox.started(ids.solo);
    const input = { command: "echo x >> src/a.ts" };
    await solo.pi.fire("tool_call", { toolCallId: "b1", toolName: "bash", input }, solo.context);
    await solo.pi.fire("tool_execution_end", { toolCallId: "b1", toolName: "bash" }, solo.context);
    appendFileSync(join(sandbox.repo, "src/a.ts"), "x");
    const late = await solo.pi.fire(
      "tool_result",
      { toolCallId: "b1", toolName: "bash", input, content: [], isError: true, details: undefined },
      solo.context,
    );
    expect(late).toEqual([]);
  });

  it("watches a session in a linked worktree for the claimed key in its own copy, as the edit check refuses it there", async () => {
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", sandbox.repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
        stdio: "ignore",
      });
    mkdirSync(join(sandbox.repo, "src"));
    writeFileSync(join(sandbox.repo, "src/a.ts"), "a\n");
    git("add", "-A");
    git("commit", "-qm", "first");
    git("worktree", "add", "-q", join(sandbox.dir, "tree"));
    const tree = realpathSync(join(sandbox.dir, "tree"));
    await leadHolding(["src/a.ts"]);
    const solo = await sandbox.started(ids.solo, { cwd: tree });
    const edit = (await solo.pi.fire(
      "tool_call",
      { toolCallId: "e1", toolName: "edit", input: { path: "src/a.ts", edits: [{ oldText: "a", newText: "b" }] } },
      solo.context,
    )) as Array<{ block?: boolean }>;
    expect(edit.some((r) => r.block === true)).toBe(true);
    const text = await bash(solo, "b1", "echo x >> src/a.ts", () => appendFileSync(join(tree, "src/a.ts"), "x"));
    expect(text).toContain(`${tree}/src/a.ts (changed; claimed by lead`);
    const main = await bash(solo, "b2", `echo x >> ${sandbox.repo}/src/a.ts`, () =>
      appendFileSync(join(sandbox.repo, "src/a.ts"), "x"),
    );
    expect(main).toContain(`${realpathSync(sandbox.repo)}/src/a.ts (changed; claimed by lead`);
  });
});
