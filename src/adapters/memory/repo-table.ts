// A RepoResolver from a table, for tests and the simulator: no git, no disk. A cwd at or below a
// listed worktree top is in that repository; any other cwd is its own place (outside a repository),
// unless it is listed as missing.
import { err, ok, type Result } from "neverthrow";
import type { RepoError, RepoPlace, RepoResolver } from "../../ports/bus/repo-resolver.js";

interface TableRepo {
  /** The canonical common dir: every worktree listed here shares its bus. */
  common: string;
  /** The canonical tops of its worktrees. */
  roots: readonly string[];
}

export interface RepoTable extends RepoResolver {
  /** Makes `cwd` (and everything below it) a folder that does not exist. */
  remove(cwd: string): void;
}

/** A key like the git resolver's, `<name>-<hash>`, from a small string hash (FNV-1a, 32 bits):
 * collision-free enough for the few repositories of a test. */
function tableKey(common: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < common.length; i++) {
    hash ^= common.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const base = common.replace(/\/\.git$/, "").replace(/\.git$/, "");
  const name = base
    .slice(base.lastIndexOf("/") + 1)
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/^[.-]+/, "");
  return `${name === "" ? "repo" : name}-${hash.toString(16).padStart(8, "0")}`;
}

const within = (path: string, top: string): boolean => path === top || path.startsWith(top === "/" ? "/" : `${top}/`);

export function createRepoTable(repos: readonly TableRepo[]): RepoTable {
  const missing = new Set<string>();
  const resolve = (cwd: string): Result<RepoPlace, RepoError> => {
    for (const gone of missing) {
      if (within(cwd, gone))
        return err({ kind: "no-cwd", path: cwd, message: `ENOENT: no such file or directory, '${cwd}'` });
    }
    let best: { repo: TableRepo; root: string } | undefined;
    for (const repo of repos) {
      for (const root of repo.roots) {
        if (within(cwd, root) && (best === undefined || root.length > best.root.length)) best = { repo, root };
      }
    }
    if (best === undefined) return ok({ key: tableKey(cwd), common: cwd, root: cwd, cwd });
    return ok({ key: tableKey(best.repo.common), common: best.repo.common, root: best.root, cwd });
  };
  return { resolve, remove: (cwd) => missing.add(cwd) };
}
