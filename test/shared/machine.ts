// What an in-memory world runs on: one memfs volume (and the FsLike the stores reach it through), one
// virtual clock, one process table, one manual watcher and, for the seeded simulators, one generator.
// Every simulator and engine harness builds its machine here, so they all mean the same thing by one;
// each still wraps the parts in its own way (a recording fs, a shared clock, a clock per process).
// The combined simulator hands one machine to a mail world and a bus world, so their sessions meet on
// it. Building a part draws no number and opens no file, so the order they are built in changes
// nothing: a seed replays the same draws, the clock starts where it is told.
import type { Volume } from "memfs";
import type { FsLike } from "../../src/adapters/fs/shared/fs-like.js";
import { createManualWatcher, type ManualWatcher } from "../../src/adapters/memory/manual-watcher.js";
import { createMemoryFs } from "../../src/adapters/memory/memory-fs.js";
import { createProcessTable, type ProcessTable } from "../../src/adapters/memory/process-table.js";
import { createPrng, type Prng } from "../../src/adapters/memory/seeded-entropy.js";
import { createVirtualClock, type VirtualClock } from "../../src/adapters/memory/virtual-clock.js";

/** A machine without a generator: for the harnesses whose tests say every step themselves. */
export interface UnseededMachine {
  clock: VirtualClock;
  table: ProcessTable;
  watcher: ManualWatcher;
  /** The volume as this world's processes reach it (the combined simulator wraps it per context). */
  fs: FsLike;
  vol: Volume;
}

export interface Machine extends UnseededMachine {
  prng: Prng;
}

export interface MachineOptions {
  /** The generator's seed; without one the machine has no generator. */
  seed?: number;
  /** Where the virtual clock starts, wall and monotonic (ms). */
  startMs: number;
}

/** A fresh machine: an empty volume ("/" at 0755), the clock at `startMs`, no process, no watch. */
export function createMachine(options: MachineOptions & { seed: number }): Machine;
export function createMachine(options: MachineOptions & { seed?: undefined }): UnseededMachine;
export function createMachine(options: MachineOptions): Machine | UnseededMachine {
  const { fs, vol } = createMemoryFs();
  const prng = options.seed === undefined ? undefined : createPrng(options.seed);
  const parts: UnseededMachine = {
    clock: createVirtualClock(options.startMs),
    table: createProcessTable(),
    watcher: createManualWatcher(),
    fs,
    vol,
  };
  return prng === undefined ? parts : { prng, ...parts };
}
