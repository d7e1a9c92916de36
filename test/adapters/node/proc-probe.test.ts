import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createProcessProbe, parseProcStat } from "../../../src/adapters/node/proc-probe.js";

const onLinux = process.platform === "linux";

/** A stat line as the kernel writes it: starttime is field 22, after 19 fields that follow the comm. */
function statLine(pid: number | string, comm: string, state: string, startTime: string): string {
  return `${pid} (${comm}) ${state} 3771 3771 2802 0 -1 4194304 102 0 0 0 0 0 0 0 20 0 1 0 ${startTime} 3133440 357 0\n`;
}
const children: ChildProcess[] = [];
const tempDirs: string[] = [];

function spawnSleeper(): ChildProcess & { pid: number } {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], { stdio: "ignore" });
  children.push(child);
  if (child.pid === undefined) throw new Error("child did not start");
  return child as ChildProcess & { pid: number };
}

async function killAndReap(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill("SIGKILL");
  await exited;
}

/** A procfs stand-in: a boot id and a stat file per pid, with the given start times. */
function fakeProc(bootId: string, startTimes: Record<number, string>): string {
  const root = mkdtempSync(join(tmpdir(), "proc-probe-"));
  tempDirs.push(root);
  mkdirSync(join(root, "sys/kernel/random"), { recursive: true });
  writeFileSync(join(root, "sys/kernel/random/boot_id"), `${bootId}\n`);
  for (const [pid, startTime] of Object.entries(startTimes)) {
    mkdirSync(join(root, pid));
    writeFileSync(join(root, pid, "stat"), statLine(pid, "node", "S", startTime));
  }
  return root;
}

function errnoError(code: string): Error {
  return Object.assign(new Error(code), { code });
}

afterEach(async () => {
  await Promise.all(children.splice(0).map(killAndReap));
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const bootA = "11111111-2222-4333-8444-555555555555";
const bootB = "99999999-2222-4333-8444-555555555555";

describe("parseProcStat: the start time, field 22", () => {
  it("reads field 22 of a plain stat line", () => {
    expect(parseProcStat(statLine(3776, "cat", "R", "84853"))?.startTime).toBe("84853");
  });

  it("counts fields after the last paren, so a comm holding ') (' and spaces cannot shift them", () => {
    const text = statLine(42, "evil) (S 1 2 3 x", "R", "84853");
    expect(parseProcStat(text)?.startTime).toBe("84853");
    expect(parseProcStat(text)?.state).toBe("R");
  });

  it("returns undefined for a line with no paren, too few fields, or a non-numeric start time", () => {
    expect(parseProcStat("3776 cat R 3771")).toBeUndefined();
    expect(parseProcStat("3776 (cat) R 3771 3771")).toBeUndefined();
    expect(parseProcStat(statLine(1, "a", "R", "12x"))).toBeUndefined();
    expect(parseProcStat("")).toBeUndefined();
  });
});

describe("createProcessProbe on this machine", () => {
  it("reports its own pid and a start token that checks alive", () => {
    const probe = createProcessProbe();
    const me = probe.self();
    expect(me.pid).toBe(process.pid);
    expect(me.started).toMatch(onLinux ? /^\d+$/ : /^[A-Z][a-z]{2} [A-Z][a-z]{2} /);
    expect(probe.check(me.pid, me.started)).toBe("alive");
    if (onLinux) {
      expect(me.bootId).toBe(readFileSync("/proc/sys/kernel/random/boot_id", "latin1").trim());
      expect(me.pidNamespace).toBe(readlinkSync("/proc/self/ns/pid"));
    }
  });

  it("judges a real child alive with its token or none, gone with a different token (pid reuse)", () => {
    const probe = createProcessProbe();
    const child = spawnSleeper();
    const token = probe.startTokenOf(child.pid);
    expect(token).toBeDefined();
    expect(probe.check(child.pid, token)).toBe("alive");
    expect(probe.check(child.pid, undefined)).toBe("alive");
    expect(probe.check(child.pid, `${token}0`)).toBe("gone");
  });

  it("judges a killed and reaped child gone", async () => {
    const probe = createProcessProbe();
    const child = spawnSleeper();
    const token = probe.startTokenOf(child.pid);
    await killAndReap(child);
    expect(probe.check(child.pid, token)).toBe("gone");
    expect(probe.check(child.pid, undefined)).toBe("gone");
  });

  it.runIf(onLinux)("judges a killed child gone while it is still an unreaped zombie", () => {
    const probe = createProcessProbe();
    const child = spawnSleeper();
    const token = probe.startTokenOf(child.pid);
    child.kill("SIGKILL");
    // Node reaps children only on the event loop, so a synchronous wait sees the zombie state.
    const deadline = Date.now() + 5_000;
    let state: string | undefined;
    while (state !== "Z" && Date.now() < deadline)
      state = parseProcStat(readFileSync(`/proc/${child.pid}/stat`, "latin1"))?.state;
    expect(state).toBe("Z");
    expect(probe.check(child.pid, token)).toBe("gone");
  });

  it("falls back to ps where there is no procfs, with an lstart token that still tells processes apart", () => {
    const probe = createProcessProbe({ procRoot: join(tmpdir(), "no-such-proc-root-for-probe") });
    const me = probe.self();
    expect(me.started).toMatch(/^[A-Z][a-z]{2} [A-Z][a-z]{2} /);
    expect(me).toMatchObject({ bootId: undefined, pidNamespace: undefined });
    expect(probe.check(me.pid, me.started)).toBe("alive");
    const child = spawnSleeper();
    expect(probe.check(child.pid, "Thu Jan  1 00:00:00 1970")).toBe("gone");
  });
});

describe("createProcessProbe decisions", () => {
  it("never signals pid 0, negative, fractional or out-of-range pids, and calls them gone", () => {
    const signalled: number[] = [];
    const probe = createProcessProbe({ kill: (pid) => void signalled.push(pid) });
    for (const pid of [0, -1, -process.pid, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 22 + 1]) {
      expect(probe.check(pid, undefined)).toBe("gone");
      expect(probe.startTokenOf(pid)).toBeUndefined();
    }
    expect(signalled).toEqual([]);
  });

  // Sessions of the previous version keep running through an upgrade: their tokens still compare.
  it("reads this package's earlier linux:<boot id>:<ticks> tokens: this boot's by the ticks, a previous boot's gone", () => {
    const probe = createProcessProbe({ procRoot: fakeProc(bootA, { [process.pid]: "500" }), kill: () => {} });
    expect(probe.self()).toMatchObject({ started: "500", bootId: bootA });
    expect(probe.check(process.pid, `linux:${bootA}:500`)).toBe("alive");
    expect(probe.check(process.pid, `linux:${bootA}:501`)).toBe("gone");
    expect(probe.check(process.pid, `linux:${bootB}:500`)).toBe("gone");
  });

  it("goes on to compare tokens when kill says EPERM (another user's process)", () => {
    const eperm = (): void => {
      throw errnoError("EPERM");
    };
    const probe = createProcessProbe({ procRoot: fakeProc(bootA, { [process.pid]: "500", 4242: "700" }), kill: eperm });
    expect(probe.check(4242, "700")).toBe("alive");
    expect(probe.check(4242, "701")).toBe("gone");
  });

  it("says unknown when the process exists but its start time cannot be read", () => {
    const probe = createProcessProbe({ procRoot: fakeProc(bootA, { [process.pid]: "500" }), kill: () => {} });
    expect(probe.check(4242, "700")).toBe("unknown");
    expect(probe.check(4242, undefined)).toBe("alive");
  });

  it("says gone when the start time vanished because the process exited between the two looks", () => {
    let calls = 0;
    const exitsAfterFirstLook = (): void => {
      calls++;
      if (calls > 1) throw errnoError("ESRCH");
    };
    const probe = createProcessProbe({
      procRoot: fakeProc(bootA, { [process.pid]: "500" }),
      kill: exitsAfterFirstLook,
    });
    expect(probe.check(4242, "700")).toBe("gone");
    expect(calls).toBe(2);
  });

  it("says unknown when kill fails with anything but ESRCH or EPERM", () => {
    const einval = (): void => {
      throw errnoError("EINVAL");
    };
    const probe = createProcessProbe({ procRoot: fakeProc(bootA, { [process.pid]: "500" }), kill: einval });
    expect(probe.check(4242, undefined)).toBe("unknown");
  });

  // Issue 9 §2: "A token that differs from what this machine reads for that pid means gone, whoever wrote it."
  it("judges a token that differs from this machine's reading gone, whoever wrote it", () => {
    const probe = createProcessProbe({
      procRoot: fakeProc(bootA, { [process.pid]: "500", 4242: "700" }),
      kill: () => {},
    });
    expect(probe.check(4242, "700")).toBe("alive");
    expect(probe.check(4242, "12345")).toBe("gone");
    expect(probe.check(4242, "ps:Thu Jan  1 00:00:00 1970")).toBe("gone");
    expect(probe.check(4242, " 700")).toBe("gone");
  });
});
