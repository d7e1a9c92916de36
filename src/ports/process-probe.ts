/** alive: the process runs and is the one recorded; gone: no such process, or its pid was reused;
 * unknown: cannot tell (never treated as dead). */
export type Liveness = "alive" | "gone" | "unknown";

export interface ProcessIdentity {
  pid: number;
  /** Opaque token for the process's start time; undefined where it cannot be read. */
  started: string | undefined;
}

export interface ProcessProbe {
  /** This process. */
  self(): ProcessIdentity;
  /** Is pid `pid`, started at `started` (when known), still running? */
  check(pid: number, started: string | undefined): Liveness;
}
