// Which bus a cwd joins: `git rev-parse` names the common dir (shared by every worktree of one
// repository) and this worktree's top, both canonicalized; outside a repository, the real cwd.
// A cwd with no work tree (a bare repository, or inside a `.git` folder) joins its repository's bus,
// so a lead in a bare repository sees the sessions of its worktrees, and its claims are relative to
// its real cwd (it has no top of its own).

import { realpathSync } from "node:fs";
import { basename, dirname, resolve as resolvePath } from "node:path";
import { err, ok, type Result } from "neverthrow";
import { gitOutputBytesMax, gitTimeoutMs } from "../../domain/bus/limits.js";
import type { RepoError, RepoPlace, RepoResolver } from "../../ports/bus/repo-resolver.js";
import { nodeChildProcess, nodeCrypto } from "./builtins.js";

const keyNameCharsMax = 40;
const keyHashHexChars = 16;

export interface GitRepoResolverOptions {
  /** The git program (default `git`, found on PATH). */
  git?: string;
  /** The environment git runs in (default this process's); GIT_OPTIONAL_LOCKS=0 and LC_ALL=C are always added. */
  env?: NodeJS.ProcessEnv;
}

export function createGitRepoResolver(options: GitRepoResolverOptions = {}): RepoResolver {
  const git = options.git ?? "git";
  // C locale: the fallback is told apart by git's own words ("not a git repository").
  const env = { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C" };
  return { resolve: (cwd) => resolve(git, env, cwd) };
}

/** `<readable name>-<16 hex of sha256(common)>`: readable in a listing, and the hash keeps two
 * repositories with one name apart. The name is the main worktree's folder (the common dir's
 * parent for `.git`), a bare repository's without `.git`, or the cwd's outside a repository. */
function repoKey(common: string, isRepository: boolean): string {
  const base = basename(common);
  const named = !isRepository ? base : base === ".git" ? basename(dirname(common)) : base.replace(/\.git$/, "");
  const readable = named
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "")
    .slice(0, keyNameCharsMax)
    .replace(/-+$/, "");
  const hash = nodeCrypto().createHash("sha256").update(common).digest("hex").slice(0, keyHashHexChars);
  return `${readable === "" ? "repo" : readable}-${hash}`;
}

function resolve(git: string, env: NodeJS.ProcessEnv, cwd: string): Result<RepoPlace, RepoError> {
  let real: string;
  try {
    real = realpathSync(cwd);
  } catch (thrown) {
    return err({ kind: "no-cwd", path: cwd, message: thrown instanceof Error ? thrown.message : String(thrown) });
  }
  const outside = (): Result<RepoPlace, RepoError> =>
    ok(spelledFrom(cwd, { key: repoKey(real, false), common: real, root: real, cwd: real }));
  const run = runGit(git, env, real);
  switch (run.kind) {
    case "not-a-repository":
      return outside();
    case "failed":
      return err({ kind: "git-failed", message: run.message });
    case "lines": {
      const [commonLine, topLine] = run.lines;
      const common = commonLine === undefined ? undefined : canonical(commonLine);
      if (common === undefined) return err({ kind: "git-failed", message: `git named no common dir for ${real}` });
      const root = topLine === undefined ? real : canonical(topLine);
      if (root === undefined)
        return err({ kind: "git-failed", message: `git named a top that does not exist for ${real}` });
      return ok(spelledFrom(cwd, { key: repoKey(common, true), common, root, cwd: real }));
    }
    default: {
      const never: never = run;
      return never;
    }
  }
}

/** `place`, with the host's spelling of it when `cwd` (as given) is not the canonical cwd: the
 * repository's top as that cwd spells it when it can be told, else the cwd itself. */
function spelledFrom(cwd: string, place: RepoPlace): RepoPlace {
  const given = resolvePath(cwd);
  if (given === place.cwd) return place;
  const top = topAsSpelled(given, place);
  const spelled = top === undefined ? { path: given, canonical: place.cwd } : { path: top, canonical: place.root };
  return { ...place, spelled };
}

/** As many folders up from `given` as the cwd sits below the top, when that leads to the top (a
 * link below the top spells nothing above it). */
function topAsSpelled(given: string, place: RepoPlace): string | undefined {
  if (place.cwd !== place.root && !place.cwd.startsWith(`${place.root}/`)) return undefined;
  const depth = place.cwd === place.root ? 0 : place.cwd.slice(place.root.length + 1).split("/").length;
  let top = given;
  for (let up = 0; up < depth; up++) top = dirname(top);
  return top !== place.root && canonical(top) === place.root ? top : undefined;
}

function canonical(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

type GitRun = { kind: "lines"; lines: string[] } | { kind: "not-a-repository" } | { kind: "failed"; message: string };

function runGit(git: string, env: NodeJS.ProcessEnv, cwd: string): GitRun {
  const args = ["-C", cwd, "rev-parse", "--path-format=absolute", "--git-common-dir", "--show-toplevel"];
  try {
    const out = nodeChildProcess().execFileSync(git, args, {
      encoding: "utf8",
      env,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: gitTimeoutMs,
      maxBuffer: gitOutputBytesMax,
      windowsHide: true,
    });
    return { kind: "lines", lines: out.split("\n").filter((line) => line !== "") };
  } catch (thrown) {
    const failed = thrown as { code?: unknown; stdout?: unknown; stderr?: unknown; message?: unknown };
    // git missing: no repository can be named, so the cwd is the place.
    if (failed.code === "ENOENT") return { kind: "not-a-repository" };
    const stderr = typeof failed.stderr === "string" ? failed.stderr : "";
    const stdout = typeof failed.stdout === "string" ? failed.stdout : "";
    if (/not a git repository/i.test(stderr)) return { kind: "not-a-repository" };
    // No work tree: git printed the common dir, then refused --show-toplevel.
    const lines = stdout.split("\n").filter((line) => line !== "");
    if (/must be run in a work tree/i.test(stderr) && lines.length === 1) return { kind: "lines", lines };
    const message = stderr.trim() || (typeof failed.message === "string" ? failed.message : "git rev-parse failed");
    return { kind: "failed", message };
  }
}
