// `claimCheck`: the edit check (the model's edit or write of one path) against every live claim:
// 100 claims held by 10 live sessions, checked by a session that has not joined (its check claims
// nothing: a pure read). Floor: one readdirSync of claims/, the listing any check of claims needs.
// Beside it: the same check against a checked floor, the listing plus the system calls that resolving
// the path as a claim does cannot skip (the stat and realpath(3) of the path, the file's device and
// inode, the look for a nested worktree's `.git` in its folder); and, without a goal, the check of a
// path a peer holds (the holder's record and the claim's time are read too, for the refusal).
import { lstatSync, mkdirSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { stampClaims } from "../src/adapters/node/claimed-files.js";
import { claimedWrites } from "../src/domain/bus/claimed-writes.js";
import { shellWatchFilesMax } from "../src/domain/bus/limits.js";
import { type BusFigure, freshBus } from "./bus-bench.js";
import { alternate } from "./fs-bench.js";
import { median, nowUs, percentile } from "./stats.js";

export interface GuardFigures {
  /** The look before and after a bash call (200 claimed files stamped twice, and compared) against
   * the same 400 lstats done bare. Reading the claims, once a call, is the edit check's cost. */
  bashGuard: BusFigure;
  claimCheck: BusFigure;
  /** The same check against the listing plus the path's resolution, done bare. */
  claimCheckChecked: BusFigure;
  /** The check of a held path against the same floor. */
  claimCheckHeld: BusFigure;
}

export async function benchClaimCheck(quick: boolean): Promise<GuardFigures> {
  const rounds = quick ? 3 : 15;
  const perRound = quick ? 50 : 200;
  const free = { ours: [] as number[], floor: [] as number[], ratios: [] as number[] };
  const held = { ours: [] as number[], floor: [] as number[], ratios: [] as number[] };
  const checked = { ours: [] as number[], floor: [] as number[], ratios: [] as number[] };
  // Round -1 warms the JIT and is not counted.
  for (let r = -1; r < rounds; r++) {
    const bus = freshBus("check", { peers: 10, claimsPerPeer: 10, joined: false });
    mkdirSync(join(bus.repo, "src"));
    writeFileSync(join(bus.repo, "src/free.ts"), "");
    const claims = join(bus.root, "claims");
    for (const [samples, path, verdict, resolved] of [
      [free, join(bus.repo, "src/free.ts"), "free", false],
      [checked, join(bus.repo, "src/free.ts"), "free", true],
      [held, join(bus.repo, "peers/p3/file-4.ts"), "held", false],
    ] as const) {
      const ours: number[] = [];
      const floor: number[] = [];
      for (let i = 0; i < perRound; i++) {
        alternate(
          i,
          () => {
            const t0 = nowUs();
            const names = readdirSync(claims);
            if (resolved) {
              statSync(path, { throwIfNoEntry: false });
              realpathSync.native(path);
              statSync(path, { bigint: true, throwIfNoEntry: false });
              lstatSync(`${dirname(path)}/.git`, { throwIfNoEntry: false });
            }
            floor.push(nowUs() - t0);
            if (names.length !== 100) throw new Error(`floor listed ${names.length}`);
          },
          () => {
            const t0 = nowUs();
            const checked = bus.engine.checkEdit(path);
            ours.push(nowUs() - t0);
            if (checked.isErr() || checked.value.kind !== verdict) {
              throw new Error(`check of ${path}: ${JSON.stringify(checked)}`);
            }
          },
        );
      }
      if (r < 0) continue;
      samples.ours.push(...ours);
      samples.floor.push(...floor);
      samples.ratios.push(median(ours) / median(floor));
    }
    bus.engine.shutdown("quit");
  }
  const figure = (s: typeof free): BusFigure => ({
    oursUs: median(s.ours),
    floorUs: median(s.floor),
    roundRatioMin: percentile(s.ratios, 0),
    roundRatioMax: percentile(s.ratios, 100),
    rounds,
    perRound,
  });
  return {
    claimCheck: figure(free),
    claimCheckChecked: figure(checked),
    claimCheckHeld: figure(held),
    bashGuard: await benchBashGuard(rounds, perRound / 5),
  };
}

const statRound = (paths: readonly string[]) => {
  for (const path of paths) lstatSync(path, { throwIfNoEntry: false });
};

/** `bashGuard`: 200 claimed files (20 live sessions, 10 each), looked at before and after a call. */
async function benchBashGuard(rounds: number, perRound: number): Promise<BusFigure> {
  const samples = { ours: [] as number[], floor: [] as number[], ratios: [] as number[] };
  for (let r = -1; r < rounds; r++) {
    const bus = freshBus("bash", { peers: 20, claimsPerPeer: 10, joined: false });
    const paths: string[] = [];
    for (let i = 0; i < 20; i++) {
      mkdirSync(join(bus.repo, "peers", `p${i}`), { recursive: true });
      for (let k = 0; k < 10; k++) {
        const path = join(bus.repo, "peers", `p${i}`, `file-${k}.ts`);
        writeFileSync(path, "");
        paths.push(path);
      }
    }
    const ours: number[] = [];
    const floor: number[] = [];
    for (let i = 0; i < perRound; i++) {
      alternate(
        i,
        () => {
          const t0 = nowUs();
          statRound(paths);
          statRound(paths);
          floor.push(nowUs() - t0);
        },
        () => {
          const claims = bus.engine.watchedClaims();
          if (claims.isErr()) throw new Error(`watchedClaims: ${JSON.stringify(claims.error)}`);
          const t0 = nowUs();
          const before = stampClaims(claims.value, shellWatchFilesMax);
          const after = stampClaims(claims.value, shellWatchFilesMax);
          const writes = claimedWrites(before, after);
          ours.push(nowUs() - t0);
          const stamped = before.claims.reduce((n, c) => n + c.paths.size, 0);
          if (writes.length !== 0 || stamped !== 200) throw new Error(`bash guard stamped ${stamped}`);
        },
      );
    }
    bus.engine.shutdown("quit");
    if (r < 0) continue;
    samples.ours.push(...ours);
    samples.floor.push(...floor);
    samples.ratios.push(median(ours) / median(floor));
  }
  return {
    oursUs: median(samples.ours),
    floorUs: median(samples.floor),
    roundRatioMin: percentile(samples.ratios, 0),
    roundRatioMax: percentile(samples.ratios, 100),
    rounds,
    perRound,
  };
}
