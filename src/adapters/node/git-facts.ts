// The git guard's reads of a repository, each one `git` process run without a shell, bounded in time
// and output. No optional locks (a status here must not take the index lock a peer's git waits
// for), the C locale, literal pathspecs (a claimed file named `*.ts` is that file, not a glob), and
// `--end-of-options` before a revision the model wrote.

import { realpath } from "node:fs/promises";
import { err, ok, type Result } from "neverthrow";
import { gitGuardOutputBytesMax, gitGuardTimeoutMs } from "../../domain/bus/limits.js";
import type { ChangedPath, GitFactError, GitFacts, WorktreeOf } from "../../ports/bus/git-facts.js";
import { nodeChildProcess } from "./builtins.js";

interface GitFactsOptions {
  /** The git program (default `git`, found on PATH). */
  git?: string;
  /** The environment git runs in (default this process's). */
  env?: NodeJS.ProcessEnv;
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function createGitFacts(options: GitFactsOptions = {}): GitFacts {
  const git = options.git ?? "git";
  const env = { ...(options.env ?? process.env), GIT_OPTIONAL_LOCKS: "0", LC_ALL: "C", GIT_PAGER: "cat" };
  const run = (args: readonly string[]) => runGit(git, args, env);
  return {
    async worktree(dir) {
      const done = await run(["-C", dir, "rev-parse", "--show-toplevel", "--show-prefix"]);
      if (done.isErr()) return err(done.error);
      if (done.value.code !== 0) {
        // Outside any repository, or where there is no work tree: nothing here a claim names.
        if (/not a git repository|must be run in a work tree/i.test(done.value.stderr)) return ok(undefined);
        return err(failed("rev-parse", done.value));
      }
      const [top = "", prefix = ""] = done.value.stdout.split("\n");
      const canonical = await realpath(top).catch(() => undefined);
      if (canonical === undefined)
        return err({ kind: "git-failed", message: `git named a top that does not exist: ${top}` });
      return ok<WorktreeOf | undefined>({ top: canonical, prefix: prefix.replace(/\/$/, "") });
    },
    async stashSubjects(dir) {
      const done = await run(["-C", dir, "stash", "list", "--format=%gs%x00"]);
      if (done.isErr()) return err(done.error);
      if (done.value.code !== 0) return err(failed("stash list", done.value));
      const subjects = done.value.stdout.split("\0").map((line) => line.replace(/^\n/, ""));
      return ok(subjects.slice(0, -1));
    },
    async isCommit(dir, rev) {
      const done = await run(["-C", dir, "rev-parse", "--verify", "--quiet", "--end-of-options", `${rev}^{commit}`]);
      if (done.isErr()) return err(done.error);
      if (done.value.code > 1) return err(failed("rev-parse --verify", done.value));
      return ok(done.value.code === 0);
    },
    async changed(top, paths, include) {
      const args = ["-C", top, "--literal-pathspecs", "status", "--porcelain=v1", "-z", "--no-renames"];
      args.push(include.untracked || include.ignored ? "--untracked-files=all" : "--untracked-files=no");
      args.push(include.ignored ? "--ignored=matching" : "--ignored=no", "--", ...paths);
      const done = await run(args);
      if (done.isErr()) return err(done.error);
      if (done.value.code !== 0) return err(failed("status", done.value));
      return ok(statusEntries(done.value.stdout));
    },
    async differs(top, from, to, paths) {
      const args = ["-C", top, "--literal-pathspecs", "diff", "--name-only", "-z", "--no-renames"];
      const done = await run([...args, "--end-of-options", from, to, "--", ...paths]);
      if (done.isErr()) return err(done.error);
      if (done.value.code !== 0) return err(failed("diff", done.value));
      return ok(done.value.stdout.split("\0").filter((path) => path !== ""));
    },
  };
}

/** `XY path` entries of `status --porcelain=v1 -z --no-renames`, each ended by a NUL. */
function statusEntries(stdout: string): ChangedPath[] {
  return stdout
    .split("\0")
    .filter((entry) => entry.length > 3)
    .map((entry) => {
      const code = entry.slice(0, 2);
      const state = code === "??" ? "untracked" : code === "!!" ? "ignored" : "tracked";
      return { path: entry.slice(3).replace(/\/$/, ""), state };
    });
}

function failed(what: string, done: Run): GitFactError {
  const said = done.stderr.trim().split("\n")[0] ?? "";
  return { kind: "git-failed", message: `git ${what} exited ${done.code}${said === "" ? "" : `: ${said}`}` };
}

function runGit(git: string, args: readonly string[], env: NodeJS.ProcessEnv): Promise<Result<Run, GitFactError>> {
  return new Promise((resolve) => {
    nodeChildProcess().execFile(
      git,
      args,
      { encoding: "utf8", env, timeout: gitGuardTimeoutMs, maxBuffer: gitGuardOutputBytesMax, windowsHide: true },
      (error, stdout, stderr) => {
        if (error === null) return resolve(ok({ code: 0, stdout, stderr }));
        const { code, killed, signal } = error as { code?: unknown; killed?: boolean; signal?: unknown };
        if (typeof code === "number" && !killed) return resolve(ok({ code, stdout, stderr }));
        const why =
          killed || signal !== null
            ? `stopped (over ${gitGuardTimeoutMs} ms or ${gitGuardOutputBytesMax} bytes)`
            : error.message;
        resolve(err({ kind: "git-failed", message: `git ${args[2] ?? ""}: ${why}` }));
      },
    );
  });
}
