// One file, two keys: sessions wired like production (createNodeBus over node fs, git for the
// repository) claim one real file under two spellings — a worktree nested inside the main checkout,
// a hard link, a symlink put in place of a claimed file, links that existed before the claim — and
// never both hold it. Where it cannot be decided (a path not made yet that is later made a link),
// the case is pinned as the README states it.
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BusEngine } from "../../../src/domain/bus/engine/index.js";
import { busFolder, createNodeBus, resolveBusPlace } from "../../../src/wiring/node-bus.js";

let base: string;
let repo: string;
let agentDir: string;
const engines: BusEngine[] = [];

function git(cwd: string, ...args: string[]): void {
  execFileSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.invalid", "-C", cwd, ...args], {
    stdio: "ignore",
    timeout: 10_000,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
  });
}

function write(path: string, text = "x\n"): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "bus-one-file-")));
  repo = join(base, "repo");
  agentDir = join(base, "agent");
  mkdirSync(agentDir, { mode: 0o700 });
  write(join(repo, "src", "a.ts"));
  write(join(repo, "src", "api", "routes.ts"));
  git(repo, "init", "-q", "-b", "main");
  git(repo, "add", "-A");
  git(repo, "commit", "-q", "-m", "init");
});

afterEach(() => {
  for (const engine of engines.splice(0)) engine.shutdown("quit");
  rmSync(base, { recursive: true, force: true });
});

/** A session whose cwd is `cwd`, wired like production. */
function session(cwd: string): BusEngine {
  const place = resolveBusPlace(cwd)._unsafeUnwrap();
  const engine = createNodeBus({ host: { raiseTurn: () => {}, warn: () => {} }, agentDir, place });
  engine.sessionStarted({ id: randomUUID(), name: undefined }, "startup");
  engines.push(engine);
  return engine;
}

/** The second claim's outcome, after the first holds. */
function secondClaim(first: BusEngine, firstPath: string, second: BusEngine, secondPath: string) {
  expect(first.claim([firstPath]).isOk()).toBe(true);
  return second.claim([secondPath]);
}

function claimFiles(): string[] {
  const place = resolveBusPlace(repo)._unsafeUnwrap();
  return readdirSync(join(busFolder(agentDir, place), "claims")).sort();
}

describe("one file under two keys is held by one session", () => {
  it("a worktree nested inside the main checkout: wt/src/a.ts claimed from the checkout is src/a.ts claimed in wt", () => {
    git(repo, "worktree", "add", "-q", "-b", "side", join(repo, "wt"));
    const outcome = secondClaim(session(repo), "wt/src/a.ts", session(join(repo, "wt")), "src/a.ts");
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a nested worktree's file not made yet is one key from the checkout and from the worktree", () => {
    git(repo, "worktree", "add", "-q", "-b", "side", join(repo, "wt"));
    const outcome = secondClaim(session(join(repo, "wt", "src")), "new.ts", session(repo), "wt/src/new.ts");
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a hard link inside a nested worktree, claimed from the checkout and from the worktree", () => {
    git(repo, "worktree", "add", "-q", "-b", "side", join(repo, "wt"));
    linkSync(join(repo, "wt", "src", "a.ts"), join(repo, "wt", "src", "b.ts"));
    const first = session(repo);
    expect(first.claim(["wt/src/a.ts"]).isOk()).toBe(true);
    expect(session(repo).claim(["wt/src/b.ts"])._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
    expect(session(join(repo, "wt")).claim(["src/b.ts"])._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a hard link: src/b.ts linked to src/a.ts is the same file", () => {
    linkSync(join(repo, "src", "a.ts"), join(repo, "src", "b.ts"));
    const outcome = secondClaim(session(repo), "src/a.ts", session(repo), "src/b.ts");
    expect(outcome._unsafeUnwrapErr()).toMatchObject({
      kind: "claim-conflict",
      conflicts: [{ path: "src/b.ts", heldPath: "src/a.ts" }],
    });
  });

  it("a hard link made after the claim", () => {
    const first = session(repo);
    expect(first.claim(["src/a.ts"]).isOk()).toBe(true);
    linkSync(join(repo, "src", "a.ts"), join(repo, "src", "b.ts"));
    expect(session(repo).claim(["src/b.ts"])._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a symlink made after the claim in place of the claimed file, which moved", () => {
    const first = session(repo);
    expect(first.claim(["src/a.ts"]).isOk()).toBe(true);
    renameSync(join(repo, "src", "a.ts"), join(repo, "src", "real.ts"));
    symlinkSync("real.ts", join(repo, "src", "a.ts"));
    expect(session(repo).claim(["src/real.ts"])._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a symlink made before the claim (held already by the path)", () => {
    symlinkSync("a.ts", join(repo, "src", "link.ts"));
    const outcome = secondClaim(session(repo), "src/a.ts", session(repo), "src/link.ts");
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a folder symlink made before the claim (held already by the path)", () => {
    symlinkSync("src", join(repo, "lib"));
    const outcome = secondClaim(session(repo), "src", session(repo), "lib/api/routes.ts");
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a sibling worktree: the same repo-relative key is one claim (by design)", () => {
    git(repo, "worktree", "add", "-q", "-b", "side", join(base, "wt"));
    const outcome = secondClaim(session(repo), "src/a.ts", session(join(base, "wt")), "src/a.ts");
    expect(outcome._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("releasing the path releases its identity too: the hard link is free after", () => {
    linkSync(join(repo, "src", "a.ts"), join(repo, "src", "b.ts"));
    const first = session(repo);
    expect(first.claim(["src/a.ts"]).isOk()).toBe(true);
    expect(first.release(["src/a.ts"])._unsafeUnwrap().released).toEqual(["src/a.ts"]);
    expect(claimFiles()).toEqual([]);
    expect(session(repo).claim(["src/b.ts"]).isOk()).toBe(true);
  });

  it("the board's release by stored key removes the identity claim with the path's", () => {
    const first = session(repo);
    expect(first.claim(["src/a.ts"]).isOk()).toBe(true);
    expect(claimFiles()).toHaveLength(2);
    expect(first.releaseKeys(["src/a.ts"])._unsafeUnwrap().released).toEqual(["src/a.ts"]);
    expect(claimFiles()).toEqual([]);
  });

  it("status lists a claimed file once, by its path", () => {
    const first = session(repo);
    expect(first.claim(["src/a.ts"]).isOk()).toBe(true);
    const row = first
      .status()
      ._unsafeUnwrap()
      .sessions.find((s) => s.self);
    expect(row?.claims).toEqual(["src/a.ts"]);
  });

  it("refuses a nested worktree's top from the checkout, naming why", () => {
    git(repo, "worktree", "add", "-q", "-b", "side", join(repo, "wt"));
    expect(session(repo).claim(["wt"])._unsafeUnwrapErr()).toEqual({ kind: "worktree-top", given: "wt" });
  });

  it("a file claimed before it existed gains its identity when claimed again, and its later hard link is held", () => {
    const first = session(repo);
    expect(first.claim(["src/new.ts"]).isOk()).toBe(true);
    write(join(repo, "src", "new.ts"));
    expect(first.claim(["src/new.ts"])._unsafeUnwrap().alreadyHeld).toEqual(["src/new.ts"]);
    linkSync(join(repo, "src", "new.ts"), join(repo, "src", "twin.ts"));
    expect(session(repo).claim(["src/twin.ts"])._unsafeUnwrapErr()).toMatchObject({ kind: "claim-conflict" });
  });

  it("a hard link broken since (the claimed file replaced by a rename, as editors save) no longer blocks", () => {
    linkSync(join(repo, "src", "a.ts"), join(repo, "src", "b.ts"));
    const first = session(repo);
    expect(first.claim(["src/a.ts"]).isOk()).toBe(true);
    write(join(repo, "src", "a.ts.tmp"), "saved\n");
    renameSync(join(repo, "src", "a.ts.tmp"), join(repo, "src", "a.ts"));
    expect(session(repo).claim(["src/b.ts"]).isOk()).toBe(true);
  });

  it("cannot be decided: a path not made yet, later made a hard link of a claimed file's twin", () => {
    // Documented in the README: the first claim had nothing to name by device and inode.
    const first = session(repo);
    expect(first.claim(["src/new.ts"]).isOk()).toBe(true);
    linkSync(join(repo, "src", "a.ts"), join(repo, "src", "new.ts"));
    expect(session(repo).claim(["src/a.ts"]).isOk()).toBe(true);
  });
});
