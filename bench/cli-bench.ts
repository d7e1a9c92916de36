// `switchboard list` as a person runs it, a fresh process each time, against the floor of any Node
// program: `node -e ""`, interleaved run by run in the same state. Four sessions run (this process
// plays them: their records name its pid), each on the mail root and the bus of one repository.
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Address } from "../src/domain/mail/address.js";
import { createNodeBus, resolveBusPlace } from "../src/wiring/node-bus.js";
import { buildCliPackage } from "../test/cli/cli-build.js";
import { e2ePaths } from "../test/e2e/harness/pi-command.js";
import { freshRoot, startEngine } from "./fs-bench.js";
import { median } from "./stats.js";

export interface CliFigures {
  /** Medians of spawn → exit, in ms. */
  listMs: number;
  floorMs: number;
  runs: number;
}

const timed = (args: readonly string[], env: NodeJS.ProcessEnv, cwd: string) => {
  const t0 = performance.now();
  const run = spawnSync(e2ePaths.nodeBin, args, { env, cwd, encoding: "utf8" });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(`${args.join(" ")} failed: ${run.stderr}`);
  return { ms, stdout: run.stdout };
};

export async function benchCliList(runs: number): Promise<CliFigures> {
  const root = freshRoot("cli");
  const repo = join(root, "repo");
  mkdirSync(repo);
  spawnSync("git", ["init", "-q"], { cwd: repo });
  const agentDir = join(root, "agent");
  const mailRoot = join(root, "state", "pi-session-mail");
  mkdirSync(mailRoot, { recursive: true });
  const names = ["builder", "reviewer", "tester", "writer"];
  const mail = names.map((_name, i) =>
    startEngine(mailRoot, `0190a1a1-0000-7000-8000-00000000000${i}`, { watch: false, pollMs: 60_000 }),
  );
  for (const [i, engine] of mail.entries()) engine.renamed(names[i]);
  const place = resolveBusPlace(repo)._unsafeUnwrap();
  const buses = names.map((name, i) => {
    const bus = createNodeBus({ host: { raiseTurn() {}, warn() {} }, agentDir, place });
    bus.sessionStarted({ id: `0190a1a1-0000-7000-8000-00000000000${i}` as Address, name }, "startup");
    bus.join({ label: name });
    return bus;
  });
  const program = buildCliPackage(join(root, "switchboard"));
  const env = {
    PATH: process.env.PATH ?? "",
    HOME: root,
    XDG_STATE_HOME: join(root, "state"),
    PI_CODING_AGENT_DIR: agentDir,
  };
  const first = timed([program, "list"], env, repo).stdout;
  if (!names.every((name) => first.includes(name))) throw new Error(`switchboard list missed a session:\n${first}`);
  const ours: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < runs; i++) {
    floor.push(timed(["-e", ""], env, repo).ms);
    ours.push(timed([program, "list"], env, repo).ms);
  }
  for (const bus of buses) bus.shutdown("quit");
  for (const engine of mail) engine.shutdown();
  return { listMs: median(ours), floorMs: median(floor), runs };
}
