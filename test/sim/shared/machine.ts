// What a simulated world runs on: one memfs volume, one virtual clock, one process table, one
// watcher and one seeded generator. Each simulator makes its own; the combined simulator
// (combined/) hands one machine to a mail world and a bus world, so their sessions meet on it.
import type { Volume } from "memfs";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import type { ManualWatcher } from "../../../src/adapters/memory/manual-watcher.js";
import type { ProcessTable } from "../../../src/adapters/memory/process-table.js";
import type { Prng } from "../../../src/adapters/memory/seeded-entropy.js";
import type { VirtualClock } from "../../../src/adapters/memory/virtual-clock.js";

export interface Machine {
  prng: Prng;
  clock: VirtualClock;
  table: ProcessTable;
  watcher: ManualWatcher;
  /** The volume as this world's processes reach it (the combined simulator wraps it per context). */
  fs: FsLike;
  vol: Volume;
}
