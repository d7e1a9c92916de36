// The bus's worker scripts, bundled by the mail half's bundleWorkers (esbuild, from src/ at every
// run) and started by its children.ts, which ends each one by its pid.
import { randomUUID } from "node:crypto";
import { bundleWorkers, type WorkerName } from "./bundle-workers.js";
import type { BusRepo } from "./bus-repo.js";
import { spawnWorker, type Worker } from "./children.js";

export type BusWorkerName = "bus-claimer" | "bus-sender" | "bus-session" | "bus-inbox-reader" | "bus-steady-sender";

export interface BusWorkerBundle {
  scripts: Record<BusWorkerName, string>;
  dispose(): void;
}

export async function bundleBusWorkers(names: readonly BusWorkerName[]): Promise<BusWorkerBundle> {
  // bundleWorkers bundles any script of workers/ by name; its type lists only the mail half's.
  const bundle = await bundleWorkers(names as unknown as readonly WorkerName[]);
  return { scripts: bundle.scripts as unknown as Record<BusWorkerName, string>, dispose: bundle.dispose };
}

/** A worker session of `repo`, working in `cwd`, under a fresh session id (returned with it). */
export function spawnBusWorker(
  script: string,
  repo: BusRepo,
  cwd: string,
  env: Record<string, string>,
): { id: string; worker: Worker } {
  const id = randomUUID();
  return { id, worker: spawnWorker(script, { AGENT_DIR: repo.agentDir, CWD: cwd, ID: id, ...env }) };
}
