import type { Liveness, ProcessIdentity, ProcessProbe } from "../../ports/process-probe.js";

/** First pid handed out; pids count up from here, so a seed always yields the same pids. */
const firstPid = 1000;
/** Same bound as the node probe: larger values are not process ids. */
const pidMax = 2 ** 22;

export type ProcessStatus = "running" | "crashed" | "exited" | "unused";

export interface SpawnOptions {
  /** false: this process's start time cannot be read (its identity has no `started`, checks against a token
   * say "unknown"), as on a platform or mount where /proc or ps tells nothing. Default true. */
  startTokenReadable?: boolean;
}

/** A fake process table the test edits: processes start, crash, exit, and have their pids reused. */
export interface ProcessTable {
  /** Starts a process on the next free pid. */
  spawn(options?: SpawnOptions): ProcessIdentity;
  /** Kills a running process abruptly (kill -9): its records stay behind. */
  crash(pid: number): void;
  /** Ends a running process normally. */
  exit(pid: number): void;
  /** The pid now belongs to a new process with a new start token; whatever ran there is gone. */
  reuse(pid: number, options?: SpawnOptions): ProcessIdentity;
  /** The probe as seen from inside process `pid`; its self() is that process's identity at this moment. */
  probeFor(pid: number): ProcessProbe;
  /** While set, every check of `pid` answers "unknown" (cannot tell), whatever runs there. */
  setUnknown(pid: number, unknown: boolean): void;
  status(pid: number): ProcessStatus;
  /** The verdict any probe of this table gives. */
  check(pid: number, started: string | undefined): Liveness;
}

interface Entry {
  token: string;
  tokenReadable: boolean;
  status: "running" | "crashed" | "exited";
}

function identityOf(pid: number, entry: Entry): ProcessIdentity {
  return { pid, started: entry.tokenReadable ? entry.token : undefined };
}

export function createProcessTable(): ProcessTable {
  const entries = new Map<number, Entry>();
  const unknownPids = new Set<number>();
  let nextPid = firstPid;
  let generation = 0;

  const start = (pid: number, options: SpawnOptions): ProcessIdentity => {
    generation++;
    const entry: Entry = {
      token: `table:${pid}:${generation}`,
      tokenReadable: options.startTokenReadable ?? true,
      status: "running",
    };
    entries.set(pid, entry);
    return identityOf(pid, entry);
  };

  const running = (pid: number): Entry => {
    const entry = entries.get(pid);
    if (entry?.status !== "running") throw new Error(`process ${pid} is not running`);
    return entry;
  };

  const check = (pid: number, started: string | undefined): Liveness => {
    if (!Number.isInteger(pid) || pid <= 0 || pid > pidMax) return "gone";
    if (unknownPids.has(pid)) return "unknown";
    const entry = entries.get(pid);
    if (entry?.status !== "running") return "gone";
    if (started === undefined) return "alive";
    if (!entry.tokenReadable) return "unknown";
    return entry.token === started ? "alive" : "gone";
  };

  return {
    spawn(options: SpawnOptions = {}): ProcessIdentity {
      // A pid taken by reuse() is skipped, so two running processes never share one.
      while (entries.get(nextPid)?.status === "running") nextPid++;
      const pid = nextPid++;
      return start(pid, options);
    },
    crash(pid: number): void {
      running(pid).status = "crashed";
    },
    exit(pid: number): void {
      running(pid).status = "exited";
    },
    reuse(pid: number, options: SpawnOptions = {}): ProcessIdentity {
      if (!Number.isInteger(pid) || pid <= 0 || pid > pidMax) throw new RangeError(`not a pid: ${pid}`);
      return start(pid, options);
    },
    probeFor(pid: number): ProcessProbe {
      const identity = identityOf(pid, running(pid));
      return { self: () => ({ ...identity }), check };
    },
    setUnknown(pid: number, unknown: boolean): void {
      if (unknown) unknownPids.add(pid);
      else unknownPids.delete(pid);
    },
    status: (pid: number): ProcessStatus => entries.get(pid)?.status ?? "unused",
    check,
  };
}
