// The node RealPaths on real files: identities, the `.git` of a worktree, and how names compare.
import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeRealPaths } from "../../../src/adapters/node/node-real-paths.js";

let base: string;
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", cwd, ...args], {
    stdio: "ignore",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "node-real-paths-")));
  mkdirSync(join(base, "Repo", "src"), { recursive: true });
  writeFileSync(join(base, "Repo", "src", "a.ts"), "a\n");
  linkSync(join(base, "Repo", "src", "a.ts"), join(base, "Repo", "src", "b.ts"));
  git(join(base, "Repo"), "init", "-q");
  git(join(base, "Repo"), "commit", "-q", "--allow-empty", "-m", "first");
  git(join(base, "Repo"), "worktree", "add", "-q", join(base, "Repo", "wt"));
  execFileSync("mkfifo", [join(base, "Repo", "src", ".git")]);
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("node RealPaths", () => {
  it("gives hard links one identity, another file another, a folder its own, and nothing none", () => {
    const a = nodeRealPaths.identity(join(base, "Repo", "src", "a.ts"));
    expect(a?.id).toMatch(/^[0-9]+-[0-9]+$/);
    expect(a?.folder).toBe(false);
    expect(nodeRealPaths.identity(join(base, "Repo", "src", "b.ts"))).toEqual(a);
    expect(nodeRealPaths.identity(join(base, "Repo", "src"))?.folder).toBe(true);
    expect(nodeRealPaths.identity(join(base, "Repo", "src", "none.ts"))).toBeUndefined();
    expect(nodeRealPaths.identity(join(base, "Repo", "src", "a.ts", "below"))).toBeUndefined();
  });

  it("names the git dir of a main checkout's .git folder and of a linked worktree's .git file", () => {
    const common = join(base, "Repo", ".git");
    expect(nodeRealPaths.gitDirOf(join(base, "Repo"))).toBe(common);
    expect(nodeRealPaths.gitDirOf(join(base, "Repo", "wt"))).toBe(join(common, "worktrees", "wt"));
  });

  it("names none for a folder without .git, and reads no .git that is not a regular file (a FIFO)", () => {
    expect(nodeRealPaths.gitDirOf(base)).toBeUndefined();
    expect(nodeRealPaths.gitDirOf(join(base, "Repo", "src"))).toBeUndefined();
  });

  it("finds Linux's names exact: neither case nor Unicode form folds", () => {
    expect(nodeRealPaths.nameFolding(join(base, "Repo"))).toEqual({ caseFolds: false, normalizes: false });
    expect(nodeRealPaths.nameFolding(join(base, "Repo", "src"))).toEqual({ caseFolds: false, normalizes: false });
  });
});
