// The git guard as Pi runs it: a `tool_call` handler for `bash` over Pi's real event bus, in a
// joined and an unjoined session, against claims on a real file system and a real repository.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { shellCommandCharsMax } from "../../../src/domain/bus/limits.js";
import { type BusSession, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();

const ids = {
  lead: "019d0000-0000-7000-8000-00000000a001",
  peer: "019d0000-0000-7000-8000-00000000b002",
};

function git(...args: string[]): string {
  return execFileSync("git", ["-C", sandbox.repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args], {
    encoding: "utf8",
  });
}

async function bash(session: BusSession, command: string) {
  const input = { command };
  const results = (await session.pi.fire(
    "tool_call",
    { toolCallId: "t1", toolName: "bash", input },
    session.context,
  )) as Array<{ block?: boolean; reason?: string } | undefined>;
  return { blocked: results.find((r) => r?.block === true)?.reason, command: input.command };
}

async function leadHoldingChangedFile(): Promise<BusSession> {
  mkdirSync(join(sandbox.repo, "src"), { recursive: true });
  writeFileSync(join(sandbox.repo, "src/a.ts"), "a\n");
  git("add", "-A");
  git("commit", "-qm", "first");
  writeFileSync(join(sandbox.repo, "src/a.ts"), "half done\n");
  const lead = await sandbox.started(ids.lead);
  await lead.tool({ action: "join", label: "lead" });
  await lead.tool({ action: "claim", paths: ["src/a.ts"] });
  return lead;
}

describe("the git guard in Pi", () => {
  it("refuses a tree-wide reset in a joined and an unjoined session, naming the holder and the narrower command", async () => {
    const lead = await leadHoldingChangedFile();
    const peer = await sandbox.started(ids.peer);
    for (const command of ["git reset --hard", "git add -A && git commit -m all"]) {
      const { blocked } = await bash(peer, command);
      expect(blocked).toMatch(
        /^Blocked: `git (reset --hard|add -A)` would (discard the changes to|stage) src\/a\.ts \(claimed by lead \(session 019d0000-0000-7000-8000-00000000a\)\) in this worktree/,
      );
      expect(blocked).toMatch(/\nNothing was run\. Do not retry this command: (restore|stage) (only )?your own files/);
    }
    // The holder's own command passes; checking wrote no record of the unjoined session.
    expect((await bash(lead, "git reset --hard")).blocked).toBeUndefined();
    expect(sandbox.records().map((r) => r.label)).toEqual(["lead"]);
  });

  it("tags this session's stash push through the tool's input, and leaves other commands as they were", async () => {
    const peer = await sandbox.started(ids.peer);
    expect(await bash(peer, "git stash")).toEqual({
      blocked: undefined,
      command: `git stash push -m '[pi-session ${ids.peer}]'`,
    });
    await peer.tool({ action: "join", label: "peer" });
    expect((await bash(peer, "git stash -m wip")).command).toBe(`git stash -m '[pi-session ${ids.peer} peer] wip'`);
    for (const untouched of ["ls -la", "git status", "echo 'git stash'"]) {
      expect(await bash(peer, untouched)).toEqual({ blocked: undefined, command: untouched });
    }
  });

  it("refuses another session's stash entry", async () => {
    await leadHoldingChangedFile();
    git("stash", "push", "-q", "-m", `[pi-session ${ids.lead} lead] theirs`);
    const peer = await sandbox.started(ids.peer);
    const { blocked } = await bash(peer, "git stash pop");
    expect(blocked).toBe(
      [
        "Blocked: this session has no stash entry, and `git stash pop` would take stash@{0}, pushed by lead (session 019d0000-0000-7000-8000-00000000a).",
        "Nothing was run. Do not retry this command: a session takes back only the stash entries it pushed; leave that one to its session.",
      ].join("\n"),
    );
    expect((await bash(peer, "git stash clear")).blocked).toMatch(
      /^Blocked: `git stash clear` deletes every session's stash entries, and lead \(session 019d0000-0000-7000-8000-00000000a\) is live/,
    );
  });

  it("lets a command through and warns once when git cannot answer", async () => {
    await leadHoldingChangedFile();
    const peer = await sandbox.started(ids.peer);
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    try {
      expect((await bash(peer, "git reset --hard")).blocked).toBeUndefined();
      expect((await bash(peer, "git stash pop")).blocked).toBeUndefined();
    } finally {
      process.env.PATH = path;
    }
    const warnings = peer.context.notices.filter((n) => n.level === "warning");
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.text).toMatch(
      /^A git command ran without the git guard's check \(claims and stash owners\): git /,
    );
  });

  it("does not read a command past the length bound: it passes, and the person is told once", async () => {
    await leadHoldingChangedFile();
    const peer = await sandbox.started(ids.peer);
    const long = `echo '${"x".repeat(shellCommandCharsMax)}' && git reset --hard`;
    expect((await bash(peer, long)).blocked).toBeUndefined();
    expect((await bash(peer, long)).blocked).toBeUndefined();
    expect(peer.context.notices.filter((n) => n.level === "warning").map((n) => n.text)).toEqual([
      "A bash command longer than 100,000 characters ran without the git guard's check (claims and stash owners); each such command runs unchecked.",
    ]);
    expect((await bash(peer, "git reset --hard")).blocked).toMatch(/^Blocked: /);
  });
});
