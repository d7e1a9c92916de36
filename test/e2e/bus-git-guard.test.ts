// The repository's shared git state, guarded between real `pi --mode rpc` processes: a live peer's
// claimed changes survive the other session's reset --hard, checkout of the tree, clean -fd, add -A
// and stash (in that worktree only: a linked worktree's copy is not theirs), another session's
// stash entry is never popped, applied or cleared, a session's own stash round trip works, and a
// holder killed with -9 protects nothing.
import { execFileSync } from "node:child_process";
import { readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callSession, gitRepository, gitWorktree, sessionOk, startBusSessions, startTimeoutMs } from "./bus-support.js";
import { createSandbox, type PiSession, type Sandbox } from "./harness/rpc-session.js";

const lead = { id: "0190f0f0-0000-7000-8000-00000000a001", folder: "git" };
const peer = { id: "0190f1f1-0000-7000-8000-00000000b002", folder: "git" };

const gitEnv = { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/nonexistent", GIT_CONFIG_NOSYSTEM: "1" };

describe("the git guard between real Pi sessions", () => {
  let sandbox: Sandbox;
  let repo: string;
  let tree: string;
  let l: PiSession;
  let p: PiSession;

  const git = (cwd: string, ...args: string[]) =>
    execFileSync("git", ["-C", cwd, ...args], { env: gitEnv, encoding: "utf8", timeout: 15_000 });
  const read = (path: string) => readFileSync(join(repo, path), "utf8");
  const bash = (session: PiSession, command: string) => callSession(session, { command }, "bash");
  const stashes = () => git(repo, "stash", "list", "--format=%gs").replaceAll(`On ${branch}: `, "On main: ");
  let branch: string;

  beforeAll(async () => {
    sandbox = createSandbox();
    repo = realpathSync(gitRepository(sandbox, "git"));
    git(repo, "config", "user.name", "e2e");
    git(repo, "config", "user.email", "e2e@example.invalid");
    for (const file of ["a.ts", "b.ts", "c.ts"]) writeFileSync(join(repo, file), `${file}\n`);
    git(repo, "add", "-A");
    git(repo, "commit", "-qm", "files");
    branch = git(repo, "rev-parse", "--abbrev-ref", "HEAD").trim();
    tree = realpathSync(gitWorktree(sandbox, "git", "git-tree"));
    [l, p] = (await startBusSessions(sandbox, [lead, peer])) as [PiSession, PiSession];
    await sessionOk(l, { action: "join", label: "lead" });
    await sessionOk(l, { action: "claim", paths: ["a.ts", "new.ts"] });
    // The lead's unsaved work: a change to a tracked file and a file git does not know yet.
    writeFileSync(join(repo, "a.ts"), "lead's half-done work\n");
    writeFileSync(join(repo, "new.ts"), "lead's new file\n");
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("refuses every tree-wide command that would take the claimed changes, and the work survives", async () => {
    for (const command of ["git reset --hard", "git checkout -- .", "git restore .", "git clean -fd", "git stash -u"]) {
      const outcome = await bash(p, command);
      expect(outcome.isError, command).toBe(true);
      expect(outcome.text).toMatch(
        /^Blocked: `git [^`]+` would [a-z ]+ (a\.ts|new\.ts)[^\n]* \(claimed by lead \(session 0190f0f0\)\) in this worktree/,
      );
      expect(outcome.text).toMatch(
        /\nNothing was run\. Do not retry this command: [^\n]*, or ask lead with the session tool/,
      );
    }
    const staged = await bash(p, "git add -A && git commit -qm everything");
    expect(staged.text).toMatch(/^Blocked: `git add -A` would stage a\.ts, new\.ts \(claimed by lead/);
    expect(staged.text).toContain("stage your own files by name (`git add <your paths>`)");
    expect(read("a.ts")).toBe("lead's half-done work\n");
    expect(read("new.ts")).toBe("lead's new file\n");
    expect(git(repo, "diff", "--cached", "--name-only")).toBe("");
  });

  it("lets the narrower command through, and the same command in another worktree (another copy of the file)", async () => {
    writeFileSync(join(repo, "b.ts"), "peer's change\n");
    expect((await bash(p, "git checkout -- b.ts && git add c.ts")).isError).toBe(false);
    expect(read("b.ts")).toBe("b.ts\n");
    writeFileSync(join(tree, "a.ts"), "a change in the other worktree\n");
    expect((await bash(p, `git -C ${tree} reset --hard`)).isError).toBe(false);
    expect(readFileSync(join(tree, "a.ts"), "utf8")).toBe("a.ts\n");
  });

  it("never pops, applies or clears another session's stash entry; the refusal says whose it is", async () => {
    writeFileSync(join(repo, "c.ts"), "lead's stashed change\n");
    expect((await bash(l, "git stash push -- c.ts")).isError).toBe(false);
    expect(stashes()).toBe(`On main: [pi-session ${lead.id} lead]\n`);
    const popped = await bash(p, "git stash pop");
    expect(popped.isError).toBe(true);
    expect(popped.text).toBe(
      [
        "Blocked: this session has no stash entry, and `git stash pop` would take stash@{0}, pushed by lead (session 0190f0f0).",
        "Nothing was run. Do not retry this command: a session takes back only the stash entries it pushed; leave that one to its session.",
      ].join("\n"),
    );
    expect((await bash(p, "git stash apply stash@{0}")).text).toMatch(
      /^Blocked: stash@\{0\} was pushed by lead \(session 0190f0f0\), and a session never pops, applies or drops another session's stash entry\./,
    );
    expect((await bash(p, "git stash clear")).text).toMatch(
      /^Blocked: `git stash clear` deletes every session's stash entries, and lead \(session 0190f0f0\) is live/,
    );
    expect(stashes()).toBe(`On main: [pi-session ${lead.id} lead]\n`);
  });

  it("a session's own stash round trip works beside another's entry", async () => {
    writeFileSync(join(repo, "b.ts"), "peer's work in progress\n");
    const round = await bash(p, "git stash push -m wip -- b.ts && git stash pop");
    expect(round.isError).toBe(false);
    expect(read("b.ts")).toBe("peer's work in progress\n");
    expect(stashes()).toBe(`On main: [pi-session ${lead.id} lead]\n`);
    // Its entry pushed on its own, under the lead's: a bare pop takes it, not stash@{0}... once the
    // lead's is pushed after it.
    expect((await bash(p, "git stash push -- b.ts")).isError).toBe(false);
    writeFileSync(join(repo, "c.ts"), "lead's second change\n");
    expect((await bash(l, "git stash push -- c.ts")).isError).toBe(false);
    expect((await bash(p, "git stash pop")).isError).toBe(false);
    expect(read("b.ts")).toBe("peer's work in progress\n");
    expect(stashes()).toBe(`On main: [pi-session ${lead.id} lead]\nOn main: [pi-session ${lead.id} lead]\n`);
  });

  it("a holder killed with -9 protects nothing", async () => {
    l.kill("SIGKILL");
    await l.exited;
    expect((await bash(p, "git checkout -- a.ts")).isError).toBe(false);
    expect(read("a.ts")).toBe("a.ts\n");
  });
});
