import type { Result } from "neverthrow";

/** Where a working directory sits: which bus it joins and what its claims are relative to. */
export interface RepoPlace {
  /** Names the bus folder under `<agent dir>/session-bus/`: the same for every worktree of one
   * repository (from the canonical git common dir), or for one non-repository cwd. A safe segment. */
  key: string;
  /** The canonical git common dir, or the real cwd outside a repository. */
  common: string;
  /** The canonical top of this worktree, or the real cwd outside a repository. */
  root: string;
  /** The canonical cwd. */
  cwd: string;
  /** How the session's own cwd spells a place here, when the host gave it through a link: the
   * repository's top as that cwd spells it (or, when no top can be told, the cwd itself), and the
   * canonical folder it leads to. An absolute path written under `path` names that folder. */
  spelled?: { path: string; canonical: string };
}

export type RepoError = { kind: "no-cwd"; path: string; message: string } | { kind: "git-failed"; message: string };

/** Resolves a cwd to its bus. Bounded in time and output; outside a repository it falls back to the
 * real cwd, so only a cwd that does not exist is an error. */
export interface RepoResolver {
  resolve(cwd: string): Result<RepoPlace, RepoError>;
}
