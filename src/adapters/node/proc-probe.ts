import { closeSync, openSync, readlinkSync, readSync } from "node:fs";
import type { Liveness, ProcessIdentity, ProcessProbe, ProcessReport } from "../../ports/shared/process-probe.js";
import { nodeChildProcess } from "./builtins.js";

/** Linux's PID_MAX_LIMIT on 64-bit; macOS stays far below it. Anything larger is not a process id. */
const pidMax = 2 ** 22;
/** /proc/<pid>/stat is a few hundred bytes (comm is at most 16) and boot_id 37: a full buffer is not one of them. */
const procFileBytesMax = 4096;
/** Reads of one small /proc file; procfs returns it in one or two. */
const procFileReadsMax = 8;
const psTimeoutMsDefault = 1_000;
const psOutputBytesMax = 1024;
/** starttime is field 22 of /proc/<pid>/stat; after the comm's closing paren the first field is the 3rd. */
const startTimeIndex = 22 - 3;
const bootIdShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const pidNamespaceShape = /^pid:\[\d+\]$/;
/** The tokens this package wrote before it wrote the plain ones: still read, so a session of the
 * previous version is not taken for gone during an upgrade. */
const legacyLinuxToken = /^linux:([0-9a-f-]{36}):(\d+)$/;
const legacyPsToken = /^ps:(.+)$/;

interface ProcessProbeOptions {
  /** Where procfs is mounted. Without a readable `<procRoot>/<own pid>/stat` the probe uses `ps`. */
  procRoot?: string;
  /** Bound on one `ps` run. */
  psTimeoutMs?: number;
  /** `process.kill`; tests inject errors (EPERM) through it. */
  kill?: (pid: number, signal: 0) => void;
}

/** The node probe, plus a way to read another process's start token (tests and tools need it). */
interface NodeProcessProbe extends ProcessProbe {
  startTokenOf(pid: number): string | undefined;
}

interface ProcState {
  token: string;
  /** Dead but not yet reaped: `kill(pid, 0)` still succeeds, yet it will never read mail again. */
  zombie: boolean;
  stopped: boolean;
}

interface StartSource {
  /** Reading /proc costs microseconds; running ps costs a fork, so it runs only when a token is compared. */
  cheap: boolean;
  read(pid: number): ProcState | undefined;
}

type Existence = "exists" | "gone" | "unknown";

interface ProcStat {
  state: string;
  startTime: string;
}

/** Parses /proc/<pid>/stat. The comm field may hold spaces and parens, so fields are counted after the LAST `)`. */
export function parseProcStat(text: string): ProcStat | undefined {
  const close = text.lastIndexOf(")");
  if (close < 0) return undefined;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  const state = fields[0];
  const startTime = fields[startTimeIndex];
  if (state === undefined || !/^[A-Za-z]$/.test(state)) return undefined;
  if (startTime === undefined || !/^\d+$/.test(startTime)) return undefined;
  return { state, startTime };
}

/** Parses `ps -o stat= -o lstart=`: the state letters, then the start time exactly as
 * `ps -o lstart=` prints it alone (trimmed). */
function parsePsLine(text: string): ProcState | undefined {
  const line = text.trim();
  const gap = line.search(/\s/);
  if (gap <= 0) return undefined;
  const state = line.slice(0, gap);
  const token = line.slice(gap).trim();
  if (token === "") return undefined;
  return { token, zombie: state.startsWith("Z"), stopped: state.startsWith("T") };
}

function readSmallFile(path: string, bytesMax: number): string | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, "r");
    const buffer = Buffer.alloc(bytesMax);
    let length = 0;
    for (let reads = 0; reads < procFileReadsMax && length < bytesMax; reads++) {
      const count = readSync(fd, buffer, length, bytesMax - length, null);
      if (count === 0) return buffer.toString("latin1", 0, length);
      length += count;
    }
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing to do: the descriptor is gone either way.
  }
}

function procSource(procRoot: string): StartSource {
  return {
    cheap: true,
    read(pid) {
      const text = readSmallFile(`${procRoot}/${pid}/stat`, procFileBytesMax);
      const stat = text === undefined ? undefined : parseProcStat(text);
      if (stat === undefined) return undefined;
      const { state } = stat;
      // T: stopped by a signal (Ctrl-Z); t: stopped by a tracer. Neither reads mail until continued.
      return { token: stat.startTime, zombie: state === "Z" || state === "X", stopped: state === "T" || state === "t" };
    },
  };
}

function psSource(timeoutMs: number): StartSource {
  return {
    cheap: false,
    read(pid) {
      try {
        // C locale and UTC: the same process always prints the same lstart, whoever asks.
        const output = nodeChildProcess().execFileSync("ps", ["-o", "stat=", "-o", "lstart=", "-p", String(pid)], {
          encoding: "utf8",
          env: { ...process.env, LC_ALL: "C", TZ: "UTC" },
          maxBuffer: psOutputBytesMax,
          stdio: ["ignore", "pipe", "ignore"],
          timeout: timeoutMs,
        });
        return parsePsLine(output);
      } catch {
        return undefined;
      }
    },
  };
}

function chooseSource(procRoot: string, psTimeoutMs: number): StartSource {
  const proc = procSource(procRoot);
  return proc.read(process.pid) !== undefined ? proc : psSource(psTimeoutMs);
}

function readBootId(procRoot: string): string | undefined {
  const bootId = readSmallFile(`${procRoot}/sys/kernel/random/boot_id`, procFileBytesMax)?.trim().toLowerCase();
  return bootId !== undefined && bootIdShape.test(bootId) ? bootId : undefined;
}

function readPidNamespace(procRoot: string): string | undefined {
  try {
    const link = readlinkSync(`${procRoot}/self/ns/pid`);
    return pidNamespaceShape.test(link) ? link : undefined;
  } catch {
    return undefined;
  }
}

/** The plain token a recorded one stands for; a legacy token of another boot stands for none. */
function plainToken(started: string, bootId: string | undefined): string | undefined {
  const linux = legacyLinuxToken.exec(started);
  if (linux !== null) return linux[1] === bootId ? linux[2] : undefined;
  return legacyPsToken.exec(started)?.[1] ?? started;
}

function isPlausiblePid(pid: number): boolean {
  // kill(0) signals our own process group and kill(-n) a whole group: never let such a value through.
  return Number.isInteger(pid) && pid > 0 && pid <= pidMax;
}

function existence(kill: (pid: number, signal: 0) => void, pid: number): Existence {
  try {
    kill(pid, 0);
    return "exists";
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    if (code === "ESRCH") return "gone";
    // EPERM: the process exists but belongs to another user.
    if (code === "EPERM") return "exists";
    return "unknown";
  }
}

const report = (liveness: Liveness): ProcessReport => ({ liveness, stopped: false });

export function createProcessProbe(options: ProcessProbeOptions = {}): NodeProcessProbe {
  const kill = options.kill ?? ((pid: number, signal: 0) => void process.kill(pid, signal));
  const procRoot = options.procRoot ?? "/proc";
  const source = chooseSource(procRoot, options.psTimeoutMs ?? psTimeoutMsDefault);
  let selfIdentity: ProcessIdentity | undefined;
  const self = (): ProcessIdentity => {
    selfIdentity ??= {
      pid: process.pid,
      started: source.read(process.pid)?.token,
      bootId: readBootId(procRoot),
      pidNamespace: readPidNamespace(procRoot),
    };
    return { ...selfIdentity };
  };
  const examine = (pid: number, started: string | undefined): ProcessReport => {
    if (!isPlausiblePid(pid)) return report("gone");
    const first = existence(kill, pid);
    if (first !== "exists") return report(first);
    // Where no start time can be read here, every record is judged by its pid alone.
    const comparable = started !== undefined && self().started !== undefined;
    if (!comparable && !source.cheap) return report("alive");
    const state = source.read(pid);
    if (state === undefined) {
      // Most likely the process exited between the two looks; otherwise we cannot tell.
      const again = existence(kill, pid);
      if (again !== "exists") return report(again);
      return report(comparable ? "unknown" : "alive");
    }
    if (state.zombie) return report("gone");
    // Whoever wrote the token: one that differs from this machine's reading is another process's.
    if (started !== undefined && comparable && plainToken(started, self().bootId) !== state.token) {
      return report("gone");
    }
    return { liveness: "alive", stopped: state.stopped };
  };
  const check = (pid: number, started: string | undefined): Liveness => examine(pid, started).liveness;
  const startTokenOf = (pid: number): string | undefined => (isPlausiblePid(pid) ? source.read(pid)?.token : undefined);
  return { self, check, examine, startTokenOf };
}
