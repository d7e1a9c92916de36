// A process's view of the shared volume, with the faults one process can meet between or inside
// its file system calls: it dies at the armed call (a write it dies in may be cut where Linux can
// cut one), reads of claimed mail fail, a full disk cuts writes short, and another process's step
// runs between two of its calls (memfs is synchronous, so that is where a race can happen).
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";

/** A page: Linux copies a write into the page cache page by page and checks for a fatal signal only
 * between pages, so a process killed during a write leaves a prefix that ends on a page boundary of
 * the file (or nothing, or everything). A full disk fails the bytes that need a new block. */
export const pageBytes = 4096;

export interface CrashSwitch {
  /** The process dies at its `afterCalls`-th next fs call (0: the very next one). */
  arm(afterCalls: number): void;
  readonly crashed: boolean;
}

export interface ReadFaults {
  /** The next `count` reads of mail in a cur/ fail as EMFILE, ENOMEM (at the open) or EIO (at the
   * read), as after a claim's rename on a machine out of descriptors or memory. */
  failNext(count: number): void;
}

export interface Interleave {
  /** Runs `step` (another process's work) right before this process's `afterCalls`-th next fs
   * call, counting only calls on a path that contains `touching` when given (aimed at one folder);
   * several may be armed at once. */
  at(afterCalls: number, step: () => void, touching?: string): void;
  /** Drops the steps that did not run (this process made fewer calls) and returns them. */
  disarm(): Array<() => void>;
}

export interface FaultOptions {
  /** A seeded draw in [0, n): where a dying write stops, which errno a failed read gets. */
  choose(n: number): number;
  /** The volume is full now (shared by every process on it). */
  diskFull(): boolean;
  /** Another view of the same process (the combined simulator: one Pi process, a mailbox engine and
   * a bus engine): one crash counter, one set of read faults, one list of interleaved steps, so the
   * process dies between any two fs calls of either engine. */
  sameProcessAs?: CrashSwitch | undefined;
}

export interface FaultyFs {
  fs: FsLike;
  crash: CrashSwitch;
  reads: ReadFaults;
  interleave: Interleave;
}

type SystemError = Error & { code: string };

function failure(code: string, why: string): SystemError {
  return Object.assign(new Error(`${code}: ${why}`), { code });
}

const curMail = /\/cur\/[^/]+$/;

/** The fault state of one process, whichever of its views makes the call. */
interface ProcessFaults {
  remaining: number;
  crashed: boolean;
  readFailures: number;
  pending: Array<{ calls: number; step: () => void; touching: string | undefined }>;
  crash: CrashSwitch;
  reads: ReadFaults;
  interleave: Interleave;
}

const byCrashSwitch = new WeakMap<CrashSwitch, ProcessFaults>();

function processFaults(): ProcessFaults {
  const state: ProcessFaults = {
    remaining: Number.POSITIVE_INFINITY,
    crashed: false,
    readFailures: 0,
    pending: [],
    crash: {
      arm(afterCalls) {
        state.remaining = afterCalls;
      },
      get crashed() {
        return state.crashed;
      },
    },
    reads: {
      failNext(count) {
        state.readFailures = count;
      },
    },
    interleave: {
      at(afterCalls, step, touching) {
        state.pending.push({ calls: afterCalls, step, touching });
      },
      disarm() {
        const left = state.pending.map((p) => p.step);
        state.pending = [];
        return left;
      },
    },
  };
  byCrashSwitch.set(state.crash, state);
  return state;
}

export function createFaultyFs(fs: FsLike, options: FaultOptions): FaultyFs {
  const shared = options.sameProcessAs === undefined ? undefined : byCrashSwitch.get(options.sameProcessAs);
  const state = shared ?? processFaults();
  const { crash, reads, interleave } = state;
  /** Descriptors this view opened on mail in cur/, whose reads may fail. */
  const curFds = new Set<number>();

  /** The bytes of a write at `position` that a full disk still takes: those in blocks the file has. */
  const fitting = (fd: number, position: number | null, length: number): number => {
    const size = fs.fstatSync(fd).size;
    // Only sequential writes pass null here (a fresh temp file): they go to the end of the file.
    const at = position ?? size;
    const allocated = Math.ceil(size / pageBytes) * pageBytes;
    return Math.max(0, Math.min(length, allocated - at));
  };

  /** Runs the interleaved steps due before this call, in the order they were armed. */
  const runDue = (args: unknown[]): void => {
    const paths = args.filter((a): a is string => typeof a === "string");
    const counts = ({ touching }: ProcessFaults["pending"][number]) =>
      touching === undefined || paths.some((a) => a.includes(touching));
    const due = state.pending.filter((p) => counts(p) && p.calls-- <= 0);
    if (due.length === 0) return;
    state.pending = state.pending.filter((p) => !due.includes(p));
    for (const { step } of due) step();
  };

  /** Dying inside a write: a prefix ending on a page boundary of the file, chosen by the seed. */
  const dieWriting = (args: unknown[]): void => {
    const [fd, buffer, offset, length, position] = args as [number, Uint8Array, number, number, number | null];
    const at = position ?? fs.fstatSync(fd).size;
    const cuts = [0];
    for (let boundary = (Math.floor(at / pageBytes) + 1) * pageBytes; boundary < at + length; boundary += pageBytes) {
      cuts.push(boundary - at);
    }
    cuts.push(length);
    const cut = cuts[options.choose(cuts.length)]!;
    if (cut > 0) fs.writeSync(fd, buffer, offset, cut, position);
  };

  /** The faults of one call that runs: failed reads of claimed mail, a full disk. */
  const call = (key: string | symbol, run: () => unknown, args: unknown[]): unknown => {
    if (key === "openSync" && state.readFailures > 0 && isCurRead(fs, args)) {
      state.readFailures--;
      throw options.choose(2) === 0
        ? failure("EMFILE", "too many open files")
        : failure("ENOMEM", "cannot allocate memory");
    }
    if (key === "readSync" && state.readFailures > 0 && curFds.has(args[0] as number)) {
      state.readFailures--;
      throw failure("EIO", "input/output error");
    }
    if (key === "writeSync" && options.diskFull()) {
      const [fd, buffer, offset, length, position] = args as [number, Uint8Array, number, number, number | null];
      const fits = fitting(fd, position, length);
      if (fits === 0) throw failure("ENOSPC", "no space left on device");
      if (fits < length) return fs.writeSync(fd, buffer, offset, fits, position);
    }
    const result = run();
    if (key === "openSync" && isCurRead(fs, args)) curFds.add(result as number);
    if (key === "closeSync") curFds.delete(args[0] as number);
    return result;
  };

  const wrapped = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (state.pending.length > 0 && !state.crashed) runDue(args);
        if (!state.crashed && state.remaining <= 0) {
          state.crashed = true;
          if (key === "writeSync") dieWriting(args);
        }
        if (state.crashed) throw failure("ECRASHED", "simulated crash: the process is gone");
        state.remaining--;
        return call(key, () => (value as (...a: unknown[]) => unknown).apply(target, args), args);
      };
    },
  });
  return { fs: wrapped, crash, reads, interleave };
}

/** An open for reading of an entry of some cur/: how the store reads claimed mail. */
function isCurRead(fs: FsLike, args: unknown[]): boolean {
  const [path, flags] = args as [string, number];
  const { O_WRONLY, O_CREAT, O_DIRECTORY } = fs.constants;
  return typeof path === "string" && curMail.test(path) && (flags & (O_WRONLY | O_CREAT | O_DIRECTORY)) === 0;
}
