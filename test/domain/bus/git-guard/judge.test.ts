// The git guard's verdicts against a real repository with a linked worktree, through the real git
// adapter: each rule blocks only where a live peer's claimed file has something to lose, a stash
// entry is taken only by the session that pushed it, and a fact that cannot be read lets the
// command through, reported.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { err, ok } from "neverthrow";
import parse from "shell-quote/parse.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGitFacts } from "../../../../src/adapters/node/git-facts.js";
import type { BusError } from "../../../../src/domain/bus/bus-errors.js";
import type { PeerClaim } from "../../../../src/domain/bus/engine/index.js";
import { writeCommand } from "../../../../src/domain/bus/git-guard/command-text.js";
import { type GuardPorts, judgeCommand } from "../../../../src/domain/bus/git-guard/judge.js";
import { dynamicMark, readCommand, type ShellToken } from "../../../../src/domain/bus/git-guard/shell-reading.js";

const env = {
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: "/nonexistent",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_AUTHOR_NAME: "t",
  GIT_AUTHOR_EMAIL: "t@example.invalid",
  GIT_COMMITTER_NAME: "t",
  GIT_COMMITTER_EMAIL: "t@example.invalid",
};
const self = { id: "019c0000-0000-7000-8000-00000000a001", label: "mine" };
const peer = { id: "019c0000-0000-7000-8000-00000000b002", label: "lead" };

let dir: string;
let repo: string;
let tree: string;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", ["-C", cwd, ...args], { env, encoding: "utf8" });
}

function write(path: string, text: string): void {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
}

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "git-guard-")));
  repo = join(dir, "repo");
  tree = join(dir, "tree");
  mkdirSync(repo);
  git(repo, "init", "-q", "-b", "main");
  for (const file of ["src/a.ts", "src/b.ts", "lib/c.ts"]) write(join(repo, file), `${file}\n`);
  git(repo, "add", "-A");
  git(repo, "commit", "-qm", "first");
  git(repo, "branch", "other");
  git(repo, "worktree", "add", "-q", "--detach", tree);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const claim = (key: string, root = repo, holder = peer): PeerClaim => ({ key, holder, root, observed: false });

interface Judged {
  blocked: string | undefined;
  command: string;
  unchecked: number;
}

async function judge(
  command: string,
  claims: PeerClaim[],
  options: { cwd?: string; ports?: Partial<GuardPorts> } = {},
) {
  const words = (text: string) => parse(text, () => dynamicMark) as ShellToken[];
  const reading = readCommand(command, options.cwd ?? repo, words);
  const ports: GuardPorts = {
    facts: createGitFacts({ env }),
    peerClaims: () => ok(claims),
    liveOthers: () => ok([peer]),
    ...options.ports,
  };
  const verdict = await judgeCommand(reading, self, ports);
  const rewritten = reading.tokens !== undefined && verdict.edits.length > 0;
  return {
    blocked: verdict.refusal === undefined ? undefined : JSON.stringify(verdict.refusal),
    command: rewritten ? writeCommand(reading.tokens as ShellToken[], verdict.edits) : command,
    unchecked: verdict.unchecked.length,
  } satisfies Judged;
}

const blocked = async (command: string, claims: PeerClaim[], cwd?: string) =>
  (await judge(command, claims, cwd === undefined ? {} : { cwd })).blocked;

describe("commands that would touch a live peer's claimed files", () => {
  it("reset --hard, checkout and restore of a folder are refused only while the claimed file has changes", async () => {
    const claims = [claim("src/a.ts")];
    for (const command of ["git reset --hard", "git checkout -- .", "git restore src", "git checkout src/a.ts"]) {
      expect(await blocked(command, claims), command).toBeUndefined();
    }
    write(join(repo, "src/a.ts"), "half done\n");
    for (const command of ["git reset --hard", "git checkout -- .", "git restore src", "cd src && git checkout ."]) {
      const refusal = JSON.parse((await blocked(command, claims)) ?? "null");
      expect(refusal, command).toMatchObject({ kind: "touches-claims", touch: "discard", touched: [claims[0]] });
    }
    expect(await blocked("git checkout -- lib", claims)).toBeUndefined();
    expect(await blocked("git restore lib/c.ts src/b.ts", claims)).toBeUndefined();
  });

  it("a claim held in another worktree is another copy of the file: not touched here", async () => {
    write(join(repo, "src/a.ts"), "half done\n");
    expect(await blocked("git reset --hard", [claim("src/a.ts", tree)])).toBeUndefined();
    write(join(tree, "src/a.ts"), "theirs\n");
    expect(await blocked("git -C ../tree reset --hard", [claim("src/a.ts", tree)])).toContain("touches-claims");
  });

  it("a folder claim covers the files below it", async () => {
    write(join(repo, "src/b.ts"), "changed\n");
    expect(await blocked("git checkout -- src/b.ts", [claim("src")])).toContain('"touch":"discard"');
  });

  it("clean -f deletes claimed untracked files (ignored ones only with -x or -X)", async () => {
    write(join(repo, "src/new.ts"), "new\n");
    write(join(repo, ".gitignore"), "*.log\n");
    write(join(repo, "lib/debug.log"), "log\n");
    expect(await blocked("git clean -fd", [claim("src/new.ts")])).toContain('"touch":"clean"');
    expect(await blocked("git clean -fd lib", [claim("src/new.ts")])).toBeUndefined();
    expect(await blocked("git clean -fd", [claim("lib/debug.log")])).toBeUndefined();
    expect(await blocked("git clean -fdx", [claim("lib/debug.log")])).toContain('"touch":"clean"');
    expect(await blocked("git clean -n", [claim("src/new.ts")])).toBeUndefined();
  });

  it("add -A, add ., add -u and commit -a are refused while a claimed file has changes", async () => {
    write(join(repo, "src/a.ts"), "half done\n");
    write(join(repo, "lib/c.ts"), "mine\n");
    const claims = [claim("src/a.ts")];
    for (const command of ["git add -A", "git add .", "git add -u", "git commit -am wip", "git commit -m x src"]) {
      expect(await blocked(command, claims), command).toMatch(/"touch":"(stage|commit)"/);
    }
    expect(await blocked("git add lib/c.ts && git commit -m mine", claims)).toBeUndefined();
    expect(await blocked("cd lib && git add .", claims)).toBeUndefined();
    // An untracked claimed file: add -A takes it, add -u and commit -a do not.
    write(join(repo, "src/new.ts"), "new\n");
    git(repo, "checkout", "--", "src/a.ts");
    expect(await blocked("git add -A", [claim("src/new.ts")])).toContain("stage");
    expect(await blocked("git add -u", [claim("src/new.ts")])).toBeUndefined();
    expect(await blocked("git commit -a -m x", [claim("src/new.ts")])).toBeUndefined();
  });

  it("switch and checkout of a branch are refused when the claimed file differs there", async () => {
    const claims = [claim("src/a.ts")];
    expect(await blocked("git switch other", claims)).toBeUndefined();
    git(repo, "switch", "-q", "other");
    write(join(repo, "src/a.ts"), "on other\n");
    git(repo, "commit", "-qam", "other");
    git(repo, "switch", "-q", "main");
    expect(await blocked("git switch other", claims)).toContain('"touch":"switch"');
    expect(await blocked("git checkout other", claims)).toContain('"touch":"switch"');
    expect(await blocked("git switch other", [claim("src/b.ts")])).toBeUndefined();
    // A name git does not resolve is git's to refuse (or to make from a remote branch): no warning.
    expect(await judge("git switch no-such-branch", claims)).toMatchObject({ blocked: undefined, unchecked: 0 });
  });

  it("a stash push takes a claimed file's changes away: refused, and a push of one's own paths is tagged", async () => {
    write(join(repo, "src/a.ts"), "half done\n");
    write(join(repo, "lib/c.ts"), "mine\n");
    expect(await blocked("git stash", [claim("src/a.ts")])).toContain('"touch":"stash"');
    const own = await judge("git stash push -- lib/c.ts", [claim("src/a.ts")]);
    expect(own).toEqual({
      blocked: undefined,
      command: `git stash push -m '[pi-session ${self.id} mine]' -- lib/c.ts`,
      unchecked: 0,
    });
  });
});

describe("the stash", () => {
  const push = (message: string, file = "lib/c.ts") => {
    write(join(repo, file), `${message}\n`);
    git(repo, "stash", "push", "-q", "-m", message);
  };

  it("tags every form of push with this session, keeping the model's message", async () => {
    const tag = `[pi-session ${self.id} mine]`;
    expect((await judge("git stash", [])).command).toBe(`git stash push -m '${tag}'`);
    expect((await judge("git stash -u", [])).command).toBe(`git stash push -m '${tag}' -u`);
    expect((await judge(`git stash push -m "half way"`, [])).command).toBe(`git stash push -m '${tag} half way'`);
    expect((await judge("git stash save fix it", [])).command).toBe(`git stash save '${tag} fix' it`);
    // Lines, variables: not written back, so not tagged (and let through).
    expect((await judge("git stash\ngit status", [])).command).toBe("git stash\ngit status");
  });

  it("never takes another session's entry, named or bare, and says whose it is", async () => {
    push(`[pi-session ${peer.id} lead] theirs`);
    expect(JSON.parse((await blocked("git stash pop stash@{0}", [])) ?? "null")).toEqual({
      kind: "foreign-entry",
      verb: "pop",
      index: 0,
      owner: peer,
    });
    expect(await blocked("git stash drop 0", [])).toContain("foreign-entry");
    expect(JSON.parse((await blocked("git stash apply", [])) ?? "null")).toMatchObject({ kind: "no-own-entry" });
    expect(await blocked(`sh -c 'git stash pop'`, [])).toContain("no-own-entry");
  });

  it("a bare pop takes this session's newest entry when the command runs, even one the same command pushes", async () => {
    push(`[pi-session ${self.id} mine] older`);
    push(`[pi-session ${peer.id} lead] theirs`, "src/b.ts");
    const judged = await judge("git stash pop", []);
    expect(judged.blocked).toBeUndefined();
    expect(judged.command).toBe(
      `git stash pop "$(git stash list --max-count=1 --format=%gd --fixed-strings '--grep=[pi-session ${self.id}')"`,
    );
    execFileSync("sh", ["-c", judged.command], { cwd: repo, env });
    expect(git(repo, "stash", "list", "--format=%gs")).toBe(`On main: [pi-session ${peer.id} lead] theirs\n`);
    // The chain a model writes: the pop is pointed at what its own push leaves, whatever a peer pushes.
    write(join(repo, "lib/c.ts"), "mine again\n");
    const chain = await judge("git stash && git status && git stash pop", []);
    execFileSync("sh", ["-c", chain.command], { cwd: repo, env });
    expect(git(repo, "stash", "list", "--format=%gs")).toBe(`On main: [pi-session ${peer.id} lead] theirs\n`);
  });

  it("takes entries nobody tagged (a person's), and names its own when the command cannot be written back", async () => {
    push("a person's");
    expect(await judge("git stash pop", [])).toMatchObject({ blocked: undefined, command: "git stash pop" });
    push(`[pi-session ${self.id} mine] own`, "src/b.ts");
    push("another person's", "src/a.ts");
    expect(JSON.parse((await blocked("git status\ngit stash pop", [])) ?? "null")).toEqual({
      kind: "name-own-entry",
      verb: "pop",
      index: 1,
    });
  });

  it("clear waits until no other live session is on the repository", async () => {
    expect(JSON.parse((await blocked("git stash clear", [])) ?? "null")).toEqual({ kind: "clear", live: [peer] });
    expect((await judge("git stash clear", [], { ports: { liveOthers: () => ok([]) } })).blocked).toBeUndefined();
    expect((await judge("git stash clear", [], { ports: { liveOthers: () => undefined } })).blocked).toBeUndefined();
  });
});

describe("failing open", () => {
  it("lets the command through and reports it when the claims or git cannot be read", async () => {
    write(join(repo, "src/a.ts"), "half done\n");
    const unreadable: BusError = { kind: "claims-unlisted", entriesMax: 1 };
    expect(await judge("git reset --hard", [], { ports: { peerClaims: () => err(unreadable) } })).toMatchObject({
      blocked: undefined,
      unchecked: 1,
    });
    const noGit = { facts: createGitFacts({ env, git: join(dir, "no-such-git") }) };
    expect(await judge("git reset --hard", [claim("src/a.ts")], { ports: noGit })).toMatchObject({
      blocked: undefined,
      unchecked: 1,
    });
    expect(await judge("git stash pop", [], { ports: noGit })).toMatchObject({ blocked: undefined, unchecked: 1 });
    // No bus, or a session not started: nothing to check, nothing to report.
    expect(await judge("git reset --hard", [], { ports: { peerClaims: () => undefined } })).toMatchObject({
      unchecked: 0,
    });
    const notStarted = { peerClaims: () => err<PeerClaim[], BusError>({ kind: "not-started" }) };
    expect(await judge("git reset --hard", [], { ports: notStarted })).toMatchObject({ unchecked: 0 });
  });

  it("passes what it cannot place: globs, variables, a folder a cd made up, git pointed elsewhere", async () => {
    write(join(repo, "src/a.ts"), "half done\n");
    const claims = [claim("src/a.ts")];
    for (const command of [
      "git checkout -- src/*.ts",
      "git checkout -- $FILES",
      "cd $X && git reset --hard",
      "GIT_DIR=.git git reset --hard",
      "git --work-tree=. reset --hard",
      "git status && git log",
    ]) {
      expect(await judge(command, claims), command).toEqual({ blocked: undefined, command, unchecked: 0 });
    }
  });
});
