// What the bus simulator changes in its worker's globals, and why. memfs stamps mtimes with
// `new Date()`, and the bus reads an mtime as a heartbeat and an arrival: Date must follow the
// virtual wall clock. vitest's fake Date does that at a third of the run's time, so a subclass does it
// here. memfs also asks the real process for its uid and gid whenever it makes a node or checks a
// permission (a system call each): they answer memoryFsUid, the user the memory fs runs as.
import { memoryFsUid } from "../../../src/adapters/memory/memory-fs.js";

let wallMs = 0;

/** What `new Date()` and `Date.now()` answer from now on. */
export function setWallMs(ms: number): void {
  wallMs = ms;
}

/** Installs both; returns what puts the worker back. */
export function installWallClock(): () => void {
  const realDate = globalThis.Date;
  const { getuid, getgid } = process;
  // A subclass, not a Proxy: memfs makes a Date at every node and every access, and a construct
  // trap through a Proxy costs ten times a plain subclass's constructor.
  class WallDate extends realDate {
    constructor(...args: [] | [string | number | Date]) {
      if (args.length === 0) super(wallMs);
      else super(args[0]);
    }
    static override now(): number {
      return wallMs;
    }
  }
  globalThis.Date = WallDate as DateConstructor;
  process.getuid = () => memoryFsUid;
  process.getgid = () => memoryFsUid;
  return () => {
    globalThis.Date = realDate;
    if (getuid !== undefined) process.getuid = getuid;
    if (getgid !== undefined) process.getgid = getgid;
  };
}
