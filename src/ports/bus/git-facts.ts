import type { Result } from "neverthrow";

/** git could not answer (missing, timed out, too much output, an error of its own). */
export interface GitFactError {
  kind: "git-failed";
  message: string;
}

export interface WorktreeOf {
  /** The canonical top of the worktree. */
  top: string;
  /** The folder asked about, relative to that top (`""` at the top). */
  prefix: string;
}

type ChangeState = "tracked" | "untracked" | "ignored";

export interface ChangedPath {
  /** Relative to the worktree's top. */
  path: string;
  state: ChangeState;
}

/** What the git guard asks of git before a command runs: reads only, each bounded in time and output. */
export interface GitFacts {
  /** The worktree `dir` is in; undefined when it is in none (outside a repository, a bare one). */
  worktree(dir: string): Promise<Result<WorktreeOf | undefined, GitFactError>>;
  /** The reflog subjects of the stash, newest first (`stash@{0}` first). */
  stashSubjects(dir: string): Promise<Result<string[], GitFactError>>;
  /** Whether `rev` names a commit, as `git checkout <rev>` would read it. */
  isCommit(dir: string, rev: string): Promise<Result<boolean, GitFactError>>;
  /** The files at or below `paths` (relative to `top`) with local changes: tracked files changed in
   * the index or the working tree, and untracked or ignored files when asked for. */
  changed(
    top: string,
    paths: readonly string[],
    include: { untracked: boolean; ignored: boolean },
  ): Promise<Result<ChangedPath[], GitFactError>>;
  /** The files at or below `paths` whose content differs between two commits. */
  differs(top: string, from: string, to: string, paths: readonly string[]): Promise<Result<string[], GitFactError>>;
}
