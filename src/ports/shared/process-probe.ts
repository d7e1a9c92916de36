/** alive: the process runs and is the one recorded; gone: no such process, or its pid was reused;
 * unknown: cannot tell (never treated as dead). */
export type Liveness = "alive" | "gone" | "unknown";

/** What a running record says about the process that wrote it. */
export interface ProcessIdentity {
  pid: number;
  /** The process's start time as every implementation writes it (field 22 of /proc/<pid>/stat on
   * Linux, `ps -o lstart=` under LC_ALL=C TZ=UTC on macOS); undefined where it cannot be read. */
  started: string | undefined;
  /** The kernel's boot id: a record written under another one is from a previous boot. */
  bootId: string | undefined;
  /** The pid namespace, as `readlink /proc/self/ns/pid` shows it (`pid:[4026531836]`): a pid
   * recorded in another namespace names nothing, or someone else, here. */
  pidNamespace: string | undefined;
}

/** One look at a process. `stopped`: alive but stopped by a signal (Ctrl-Z, SIGSTOP) or a tracer,
 * so it reads no mail until it is continued; false where that cannot be read. */
export interface ProcessReport {
  liveness: Liveness;
  stopped: boolean;
}

export interface ProcessProbe {
  /** This process. */
  self(): ProcessIdentity;
  /** Is pid `pid`, started at `started` (when known), still running? */
  check(pid: number, started: string | undefined): Liveness;
  /** check(), and whether that process is stopped, from the same look. */
  examine(pid: number, started: string | undefined): ProcessReport;
}
