// One throw-away repository for the bus's real-process suites: a git repository with a commit and
// a linked worktree (both share one bus), an agent dir beside them, and in-process sessions
// wired like production (createNodeBus over node fs, /proc, git).
import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BusEngine } from "../../../src/domain/bus/engine/index.js";
import type { BusHost, BusWarning, MailNotice } from "../../../src/ports/bus/bus-host.js";
import type { RepoPlace } from "../../../src/ports/bus/repo-resolver.js";
import { busFolder, createNodeBus, resolveBusPlace } from "../../../src/wiring/node-bus.js";

/** Files committed in the repository: some claims name them, others name paths that do not exist yet. */
const committed = ["README.md", "src/api/routes.ts", "src/api/v2/users.ts", "src/lib/util.ts", "docs/guide.md"];

export interface BusRepo {
  /** The mkdtemp folder holding everything below: removed by `dispose`. */
  base: string;
  /** The main worktree and a linked one (`git worktree add`), canonical. */
  repo: string;
  worktree: string;
  /** Pi's agent dir: the bus is `<agentDir>/session-bus/<key>/`. */
  agentDir: string;
  /** The bus folder both worktrees share. */
  bus: string;
  /** Where a session in `cwd` is, by the production resolver (one git call). */
  place(cwd: string): RepoPlace;
  dispose(): Promise<void>;
}

function git(cwd: string, args: readonly string[]): void {
  execFileSync("git", ["-C", cwd, ...args], {
    stdio: "ignore",
    timeout: 10_000,
    // No user or system config: a developer's hooks or signing settings must not reach the suite.
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1", LC_ALL: "C" },
  });
}

export function createBusRepo(prefix: string): BusRepo {
  const base = realpathSync(mkdtempSync(join(tmpdir(), `${prefix}-`)));
  const repo = join(base, "repo");
  const worktree = join(base, "wt");
  const agentDir = join(base, "agent");
  mkdirSync(agentDir, { mode: 0o700 });
  mkdirSync(repo);
  git(repo, ["init", "-q", "-b", "main"]);
  for (const file of committed) {
    mkdirSync(dirname(join(repo, file)), { recursive: true });
    writeFileSync(join(repo, file), `${file}\n`);
  }
  git(repo, ["add", "-A"]);
  git(repo, ["-c", "user.name=stress", "-c", "user.email=stress@example.invalid", "commit", "-q", "-m", "init"]);
  git(repo, ["worktree", "add", "-q", "-b", "side", worktree]);
  const place = (cwd: string): RepoPlace => {
    const resolved = resolveBusPlace(cwd);
    if (resolved.isErr()) throw new Error(`no bus place for ${cwd}: ${JSON.stringify(resolved.error)}`);
    return resolved.value;
  };
  const main = place(repo);
  if (place(worktree).key !== main.key) throw new Error("the worktree and the repository must share one bus");
  return {
    base,
    repo,
    worktree,
    agentDir,
    bus: busFolder(agentDir, main),
    place,
    // Asynchronous: thousands of small files go faster in parallel.
    dispose: () => rm(base, { recursive: true, force: true }),
  };
}

/** A host that records what the engine hands it; nothing raises a turn in these suites. */
export interface QuietHost extends BusHost {
  readonly warnings: BusWarning[];
  readonly notices: MailNotice[];
}

export function quietHost(): QuietHost {
  const host: QuietHost = {
    warnings: [],
    notices: [],
    raiseTurn: (notice) => void host.notices.push(notice),
    warn: (warning) => void host.warnings.push(warning),
  };
  return host;
}

export interface InProcessSession {
  id: string;
  engine: BusEngine;
  host: QuietHost;
}

/** A session in this process, wired like production, started (not joined: the spec's lazy join). */
export function startSession(repo: BusRepo, place: RepoPlace, id: string = randomUUID()): InProcessSession {
  const host = quietHost();
  const engine = createNodeBus({ host, agentDir: repo.agentDir, place });
  engine.sessionStarted({ id, name: undefined }, "startup");
  return { id, engine, host };
}
