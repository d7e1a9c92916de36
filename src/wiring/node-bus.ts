// The production wiring of one session's bus: git for the repository, node fs under the agent dir,
// /proc for liveness, fs.watch hints on the own inbox, the system clock.
import type { Result } from "neverthrow";
import { createFsBusStore } from "../adapters/fs/bus/fs-bus-store.js";
import { createConfigFile } from "../adapters/node/config-file.js";
import { cryptoEntropy } from "../adapters/node/crypto-entropy.js";
import { createFsWatcher } from "../adapters/node/fs-watcher.js";
import { createGitRepoResolver } from "../adapters/node/git-repo-resolver.js";
import { nodeFs } from "../adapters/node/node-fs.js";
import { nodeRealPaths } from "../adapters/node/node-real-paths.js";
import { createProcessProbe } from "../adapters/node/proc-probe.js";
import { currentUid } from "../adapters/node/process-user.js";
import { systemClock } from "../adapters/node/system-clock.js";
import { isBusId } from "../domain/bus/claim-key.js";
import { type BusEngine, createBusEngine } from "../domain/bus/engine/index.js";
import { readConfig } from "../domain/mail/config.js";
import type { BusHost } from "../ports/bus/bus-host.js";
import type { BusStore } from "../ports/bus/bus-store.js";
import type { RepoError, RepoPlace } from "../ports/bus/repo-resolver.js";

export interface NodeBusOptions {
  host: BusHost;
  /** Pi's agent dir: the bus lives in `<agent dir>/session-bus/<repo key>/`. */
  agentDir: string;
  /** The repository this session works in, resolved by `resolveBusPlace`. */
  place: RepoPlace;
}

/** Where `cwd`'s bus is: one git call (bounded), or the real cwd outside a repository. */
export function resolveBusPlace(cwd: string): Result<RepoPlace, RepoError> {
  return createGitRepoResolver().resolve(cwd);
}

/** The folder of `place`'s bus under `agentDir`. */
export function busFolder(agentDir: string, place: RepoPlace): string {
  return `${agentDir.replace(/\/+$/, "")}/session-bus/${place.key}`;
}

/** The bus folders under `agentDir`, one per repository (or non-repository folder) sessions ran in:
 * their keys, sorted; none when there is no bus yet. */
export function busKeys(agentDir: string): string[] {
  try {
    return nodeFs
      .readdirSync(`${agentDir.replace(/\/+$/, "")}/session-bus`, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && isBusId(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch {
    return [];
  }
}

/** The files of the bus with this key, to read as they are (a follower of its inboxes). */
export function createNodeBusStore(agentDir: string, key: string): BusStore {
  return createFsBusStore({
    fs: nodeFs,
    root: `${agentDir.replace(/\/+$/, "")}/session-bus/${key}`,
    uid: currentUid(),
    entropy: cryptoEntropy,
    warn: () => {},
  });
}

/** A bus opened by its key alone, to read (its sessions, claims and offers): a reader that is no
 * session of it, so it never joins, and paths are not resolved against any worktree. */
export function createNodeBusReader(agentDir: string, key: string, host: BusHost): BusEngine {
  const folder = `${agentDir.replace(/\/+$/, "")}/session-bus/${key}`;
  return createNodeBus({ host, agentDir, place: { key, common: folder, root: folder, cwd: folder } });
}

export function createNodeBus(options: NodeBusOptions): BusEngine {
  // The mailbox's settings file: its hopLimit is the one loop guard of both halves.
  const config = createConfigFile(options.agentDir);
  return createBusEngine({
    store: createFsBusStore({
      fs: nodeFs,
      root: busFolder(options.agentDir, options.place),
      uid: currentUid(),
      entropy: cryptoEntropy,
      warn: (warning) => options.host.warn(warning),
    }),
    place: options.place,
    clock: systemClock,
    entropy: cryptoEntropy,
    probe: createProcessProbe(),
    watcher: createFsWatcher(),
    realPaths: nodeRealPaths,
    host: options.host,
    hopLimit: () => readConfig(config.read(), config.path).config.hopLimit,
  });
}
