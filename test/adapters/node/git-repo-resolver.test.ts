// The repository key from real git repositories in a temp folder.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGitRepoResolver } from "../../../src/adapters/node/git-repo-resolver.js";

let base: string;
const resolver = createGitRepoResolver();
const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "-C", cwd, ...args], { stdio: "ignore" });

beforeAll(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "git-repo-resolver-")));
  mkdirSync(join(base, "My Repo!", "src", "api"), { recursive: true });
  git(join(base, "My Repo!"), "init", "-q");
  git(join(base, "My Repo!"), "commit", "-q", "--allow-empty", "-m", "first");
  git(join(base, "My Repo!"), "worktree", "add", "-q", join(base, "wt"));
  git(base, "init", "-q", "--bare", join(base, "hub.git"));
  mkdirSync(join(base, "plain"));
  symlinkSync(join(base, "My Repo!", "src"), join(base, "link-to-src"));
  symlinkSync(join(base, "My Repo!"), join(base, "link-to-repo"));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("git repo resolver", () => {
  it("keys a repository by its common dir: a readable name and 16 hex, with its top as the root", () => {
    const place = resolver.resolve(join(base, "My Repo!"))._unsafeUnwrap();
    expect(place).toEqual({
      key: expect.stringMatching(/^My-Repo-[0-9a-f]{16}$/),
      common: join(base, "My Repo!", ".git"),
      root: join(base, "My Repo!"),
      cwd: join(base, "My Repo!"),
    });
  });

  it("gives a subfolder the repository's key and root, with its own cwd", () => {
    const top = resolver.resolve(join(base, "My Repo!"))._unsafeUnwrap();
    const sub = resolver.resolve(join(base, "My Repo!", "src", "api"))._unsafeUnwrap();
    expect(sub).toEqual({ ...top, cwd: join(base, "My Repo!", "src", "api") });
  });

  it("gives a linked worktree the same key and common dir, and its own top as the root", () => {
    const main = resolver.resolve(join(base, "My Repo!"))._unsafeUnwrap();
    const linked = resolver.resolve(join(base, "wt"))._unsafeUnwrap();
    expect(linked.key).toBe(main.key);
    expect(linked.common).toBe(main.common);
    expect(linked.root).toBe(join(base, "wt"));
  });

  it("canonicalizes a cwd reached through a symlink, and keeps that spelling of the cwd", () => {
    const place = resolver.resolve(join(base, "link-to-src"))._unsafeUnwrap();
    expect(place.cwd).toBe(join(base, "My Repo!", "src"));
    expect(place.root).toBe(join(base, "My Repo!"));
    expect(place.spelled).toEqual({ path: join(base, "link-to-src"), canonical: join(base, "My Repo!", "src") });
  });

  it("keeps the repository's top as a cwd through a link spells it, when that leads to the top", () => {
    const place = resolver.resolve(join(base, "link-to-repo", "src", "api"))._unsafeUnwrap();
    expect(place.cwd).toBe(join(base, "My Repo!", "src", "api"));
    expect(place.spelled).toEqual({ path: join(base, "link-to-repo"), canonical: join(base, "My Repo!") });
    expect(resolver.resolve(join(base, "My Repo!", "src"))._unsafeUnwrap().spelled).toBeUndefined();
  });

  it("falls back to the real cwd outside a repository, under a key of its own", () => {
    const place = resolver.resolve(join(base, "plain"))._unsafeUnwrap();
    const cwd = join(base, "plain");
    expect(place).toEqual({ key: expect.stringMatching(/^plain-[0-9a-f]{16}$/), common: cwd, root: cwd, cwd });
  });

  it("falls back to the real cwd when git is missing", () => {
    const missing = createGitRepoResolver({ git: join(base, "no-such-git") });
    const cwd = join(base, "My Repo!");
    expect(missing.resolve(cwd)._unsafeUnwrap()).toMatchObject({ common: cwd, root: cwd, cwd });
  });

  it("joins a bare repository to its own bus, its claims relative to its real cwd", () => {
    const place = resolver.resolve(join(base, "hub.git"))._unsafeUnwrap();
    expect(place).toEqual({
      key: expect.stringMatching(/^hub-[0-9a-f]{16}$/),
      common: join(base, "hub.git"),
      root: join(base, "hub.git"),
      cwd: join(base, "hub.git"),
    });
  });

  it("gives a cwd inside .git the repository's key", () => {
    const main = resolver.resolve(join(base, "My Repo!"))._unsafeUnwrap();
    expect(resolver.resolve(join(base, "My Repo!", ".git"))._unsafeUnwrap().key).toBe(main.key);
  });

  it("refuses a cwd that does not exist", () => {
    const gone = join(base, "gone");
    expect(resolver.resolve(gone)._unsafeUnwrapErr()).toMatchObject({ kind: "no-cwd", path: gone });
  });
});
