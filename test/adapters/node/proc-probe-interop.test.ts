// Issue 9 §2: the `started` token of a running record is what every implementation computes, and
// a reader compares it for equality with its own reading. These tests write and read records the
// way another implementation does (its own /proc and ps readings, plain JSON, no extra fields),
// against a real engine on a real mail root and real processes.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createProcessProbe } from "../../../src/adapters/node/proc-probe.js";
import type { Address } from "../../../src/domain/mail/address.js";
import type { MailboxEngine } from "../../../src/domain/mail/engine/index.js";
import { createNodeMailbox } from "../../../src/wiring/node-mailbox.js";

const onLinux = process.platform === "linux";
const self = "0a0a0a0a-1111-4111-8111-111111111111" as Address;

/** Another implementation's Linux reading: field 22 of /proc/<pid>/stat, counted after the last `)`. */
function theirProcToken(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, "latin1");
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return fields[22 - 3]!;
}

/** Another implementation's macOS reading: `ps -o lstart= -p <pid>` under LC_ALL=C TZ=UTC, trimmed. */
function theirPsToken(pid: number): string {
  const env = { ...process.env, LC_ALL: "C", TZ: "UTC" };
  return execFileSync("ps", ["-o", "lstart=", "-p", String(pid)], { encoding: "utf8", env }).trim();
}

const theirToken = (pid: number) => (onLinux ? theirProcToken(pid) : theirPsToken(pid));

/** Another implementation's verdict: the process exists and its token equals this reading. */
function theyJudgeAlive(pid: number, started: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  return theirToken(pid) === started;
}

const children: ChildProcess[] = [];
let scratch: string;
let root: string;
let engine: MailboxEngine;

function spawnSleeper(): number {
  const child = spawn(process.execPath, ["-e", 'process.stdin.on("end", () => process.exit(0)).resume()'], {
    stdio: ["pipe", "ignore", "ignore"],
  });
  children.push(child);
  if (child.pid === undefined) throw new Error("child did not start");
  return child.pid;
}

async function killAndReap(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  if (child.pid !== undefined) process.kill(child.pid, "SIGKILL");
  await exited;
}

const recordPath = (address: string) => join(root, "running", `${address}.json`);

/** A record exactly as another implementation writes it: the spec's fields, nothing else. */
function writeTheirRecord(address: string, pid: number, started: string | undefined): void {
  const record = { address, cwd: "/elsewhere", pid, state: "idle", waitingOn: "", updated: new Date().toISOString() };
  writeFileSync(recordPath(address), JSON.stringify(started === undefined ? record : { ...record, started }), {
    mode: 0o600,
  });
}

const listed = (address: string) => engine.list().find((s) => s.address === address);

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "token-interop-"));
  root = join(scratch, "mail");
  const host = { inject: () => {}, notify: () => {}, setStatus: () => {}, hasShown: () => false };
  engine = createNodeMailbox({ host, agentDir: join(scratch, "agent"), root, watch: false, pollIntervalMs: 60_000 });
  engine.sessionStarted({ address: self, name: "ours", cwd: scratch });
});

afterEach(async () => {
  await Promise.all(children.splice(0).map(killAndReap));
});

afterAll(async () => {
  engine.shutdown();
  await Promise.all(children.splice(0).map(killAndReap));
  rmSync(scratch, { recursive: true, force: true });
});

describe("our records, read by another implementation", () => {
  it("carry started exactly as it reads this process's start time, so it judges our live session alive", () => {
    const record = JSON.parse(readFileSync(recordPath(self), "utf8")) as { pid: number; started: string };
    expect(record.pid).toBe(process.pid);
    expect(record.started).toBe(theirToken(process.pid));
    expect(theyJudgeAlive(record.pid, record.started)).toBe(true);
  });

  it("carry the ps reading verbatim where the probe falls back to ps", () => {
    const probe = createProcessProbe({ procRoot: join(scratch, "no-procfs-here") });
    expect(probe.self().started).toBe(theirPsToken(process.pid));
    const child = spawnSleeper();
    expect(probe.startTokenOf(child)).toBe(theirPsToken(child));
  });
});

describe.runIf(onLinux)("their records, judged by ours", () => {
  it("a live process with the token they read is alive, and its record is kept", () => {
    const child = spawnSleeper();
    const address = "0b0b0b0b-2222-4222-8222-222222222222";
    writeTheirRecord(address, child, theirProcToken(child));
    expect(listed(address)).toMatchObject({ liveness: "alive", cwd: "/elsewhere" });
    expect(existsSync(recordPath(address))).toBe(true);
  });

  it("a reused pid (a live process, but the token of one that has exited) is gone, and its record deleted", async () => {
    const earlier = spawnSleeper();
    const earlierToken = theirProcToken(earlier);
    await Promise.all(children.splice(0).map(killAndReap));
    // Start times count clock ticks (10 ms): the next process must start in a later one.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const current = spawnSleeper();
    expect(theirProcToken(current)).not.toBe(earlierToken);
    const address = "0c0c0c0c-3333-4333-8333-333333333333";
    writeTheirRecord(address, current, earlierToken);
    expect(listed(address)).toBeUndefined();
    expect(existsSync(recordPath(address))).toBe(false);
  });

  it("a token in a format this machine does not read (macOS's lstart on Linux) differs, so it is gone", () => {
    const child = spawnSleeper();
    const address = "0d0d0d0d-4444-4444-8444-444444444444";
    writeTheirRecord(address, child, "Thu Jan  1 00:00:00 1970");
    expect(listed(address)).toBeUndefined();
    expect(existsSync(recordPath(address))).toBe(false);
  });

  // "A record without started, or a platform where the start time cannot be read, is judged by the process id alone."
  it("a record without started is judged by the pid alone: kept while it runs, deleted once it exited", async () => {
    const child = spawnSleeper();
    const address = "0e0e0e0e-5555-4555-8555-555555555555";
    writeTheirRecord(address, child, undefined);
    expect(listed(address)).toMatchObject({ liveness: "alive" });
    await Promise.all(children.splice(0).map(killAndReap));
    expect(listed(address)).toBeUndefined();
    expect(existsSync(recordPath(address))).toBe(false);
  });
});
