import type { Liveness, ProcessIdentity, ProcessProbe, ProcessReport } from "../../ports/shared/process-probe.js";

/** First pid handed out; pids count up from here, so a seed always yields the same pids. */
const firstPid = 1000;
/** Same bound as the node probe: larger values are not process ids. */
const pidMax = 2 ** 22;
/** The namespace processes start in, as readlink shows the initial one on Linux. */
const hostPidNamespace = "pid:[4026531836]";
/** One boot for the whole table: records from another boot are written by hand. */
export const tableBootId = "00000000-0000-4000-8000-000000000000";

type ProcessStatus = "running" | "crashed" | "exited" | "unused";

export interface SpawnOptions {
  /** false: this process's start time cannot be read (its identity has no `started`, checks against a token
   * say "unknown"), as on a platform or mount where /proc or ps tells nothing. Default true. */
  startTokenReadable?: boolean;
  /** The pid namespace it runs in (default hostPidNamespace), as in a sandbox or a container. */
  pidNamespace?: string;
}

/** A fake process table the test edits: processes start, crash, exit, stop, and have their pids reused. */
export interface ProcessTable {
  /** Starts a process on the next free pid. */
  spawn(options?: SpawnOptions): ProcessIdentity;
  /** Kills a running process abruptly (kill -9): its records stay behind. */
  crash(pid: number): void;
  /** Ends a running process normally. */
  exit(pid: number): void;
  /** The pid now belongs to a new process with a new start token; whatever ran there is gone. */
  reuse(pid: number, options?: SpawnOptions): ProcessIdentity;
  /** SIGSTOP (Ctrl-Z): probes report it stopped. Only the flag is modelled: its engine's timers still fire. */
  stop(pid: number): void;
  /** SIGCONT: no longer stopped. */
  resume(pid: number): void;
  /** The probe as seen from inside process `pid`; its self() is that process's identity at this moment.
   * Pids are unique across the table, but a probe sees only its own namespace's: another's pid is gone. */
  probeFor(pid: number): ProcessProbe;
  /** While set, every check of `pid` answers "unknown" (cannot tell), whatever runs there. */
  setUnknown(pid: number, unknown: boolean): void;
  status(pid: number): ProcessStatus;
  /** The verdict of a probe in the process's own namespace. */
  check(pid: number, started: string | undefined): Liveness;
}

interface Entry {
  token: string;
  tokenReadable: boolean;
  pidNamespace: string;
  stopped: boolean;
  status: "running" | "crashed" | "exited";
}

function identityOf(pid: number, entry: Entry): ProcessIdentity {
  return {
    pid,
    started: entry.tokenReadable ? entry.token : undefined,
    bootId: tableBootId,
    pidNamespace: entry.pidNamespace,
  };
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
      pidNamespace: options.pidNamespace ?? hostPidNamespace,
      stopped: false,
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

  const examineIn = (pidNamespace: string | undefined, pid: number, started: string | undefined): ProcessReport => {
    const gone: ProcessReport = { liveness: "gone", stopped: false };
    if (!Number.isInteger(pid) || pid <= 0 || pid > pidMax) return gone;
    if (unknownPids.has(pid)) return { liveness: "unknown", stopped: false };
    const entry = entries.get(pid);
    if (entry?.status !== "running") return gone;
    if (pidNamespace !== undefined && entry.pidNamespace !== pidNamespace) return gone;
    if (started !== undefined && !entry.tokenReadable) return { liveness: "unknown", stopped: false };
    if (started !== undefined && entry.token !== started) return gone;
    return { liveness: "alive", stopped: entry.stopped };
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
    stop(pid: number): void {
      running(pid).stopped = true;
    },
    resume(pid: number): void {
      running(pid).stopped = false;
    },
    probeFor(pid: number): ProcessProbe {
      const identity = identityOf(pid, running(pid));
      const examine = (other: number, started: string | undefined) => examineIn(identity.pidNamespace, other, started);
      return { self: () => ({ ...identity }), check: (other, started) => examine(other, started).liveness, examine };
    },
    setUnknown(pid: number, unknown: boolean): void {
      if (unknown) unknownPids.add(pid);
      else unknownPids.delete(pid);
    },
    status: (pid: number): ProcessStatus => entries.get(pid)?.status ?? "unused",
    check: (pid: number, started: string | undefined): Liveness => examineIn(undefined, pid, started).liveness,
  };
}
