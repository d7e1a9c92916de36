// Running records judged by a real engine against real processes: a record names a pid and the
// start token of the process that wrote it (/proc/<pid>/stat field 22 plus the boot id on Linux).
// A pid that now belongs to another process, or to no process, or to a dead one not yet reaped,
// counts as gone, and whoever reads such a record deletes it.
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { createProcessProbe } from "../../src/adapters/node/proc-probe.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import type { Address } from "../../src/domain/mail/address.js";
import type { MailboxEngine } from "../../src/domain/mail/engine/index.js";
import { encodeRunningRecord } from "../../src/domain/mail/running-record.js";
import type { MailStore } from "../../src/ports/mail/mail-store.js";
import { createNodeMailbox } from "../../src/wiring/node-mailbox.js";
import { killAllWorkers, spawnProcess, type Worker, waitUntil } from "./harness/children.js";
import { newAddress } from "./harness/mail.js";

const onLinux = process.platform === "linux";
const waitMs = 10_000;
const probe = createProcessProbe();

let scratch: string;
let root: string;
let store: MailStore;
let engine: MailboxEngine;
const self = newAddress();

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "stress-pid-reuse-"));
  root = join(scratch, "mail");
  store = createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
  engine = createNodeMailbox({
    host: { inject: () => {}, notify: () => {}, setStatus: () => {}, hasShown: () => false },
    agentDir: join(scratch, "agent"),
    root,
    watch: false,
    pollIntervalMs: 60_000,
  });
  engine.sessionStarted({ address: self, name: "lister", cwd: scratch });
});

afterEach(async () => {
  await killAllWorkers();
});

afterAll(async () => {
  engine.shutdown();
  await killAllWorkers();
  await rm(scratch, { recursive: true, force: true });
});

/** A live process that prints `ready` once it runs; it ends when killed or when its stdin ends
 * (the test runner is gone), so it never outlives the suite. */
async function startSleeper(): Promise<Worker> {
  const script = 'process.stdin.on("end", () => process.exit(0)).resume(); process.stdout.write("ready\\n");';
  const worker = spawnProcess(process.execPath, ["-e", script], {});
  await worker.waitFor("ready", (lines) => lines.includes("ready"), waitMs);
  return worker;
}

function writeRecord(address: Address, pid: number, started: string | undefined): void {
  const record = {
    address,
    cwd: scratch,
    pid,
    state: "idle" as const,
    waitingOn: "",
    updated: new Date().toISOString(),
    ...(started === undefined ? {} : { started }),
  };
  store.writeRunning(address, encodeRunningRecord(record))._unsafeUnwrap();
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** A /proc file as text, or "" once it is gone. */
function procText(path: string): string {
  try {
    return readFileSync(`/proc/${path}`, "latin1");
  } catch {
    return "";
  }
}

function recordExists(address: Address): boolean {
  return existsSync(join(root, "running", `${address}.json`));
}

function listed(address: Address) {
  return engine.list().find((session) => session.address === address);
}

function tokenOf(pid: number): string {
  const token = probe.startTokenOf(pid);
  if (token === undefined) throw new Error(`no start token for pid ${pid}`);
  return token;
}

describe.runIf(onLinux)("running records of real processes", () => {
  it("lists this session itself as alive", () => {
    expect(listed(self)).toMatchObject({ liveness: "alive", self: true });
  });

  it("a record whose pid now belongs to another process (a different start token) is judged gone and deleted", async () => {
    // The token of a process that has exited stands for the session that wrote the record; the
    // pid is a live process's, as after pid reuse.
    const earlier = await startSleeper();
    const earlierToken = tokenOf(earlier.pid);
    await earlier.kill();
    const current = await startSleeper();
    expect(tokenOf(current.pid)).not.toBe(earlierToken);
    const address = newAddress();
    writeRecord(address, current.pid, earlierToken);
    expect(recordExists(address)).toBe(true);

    expect(listed(address)).toBeUndefined();
    expect(recordExists(address)).toBe(false);
  });

  it("the same pid with its own start token is alive and kept, and gone and deleted once the process exited", async () => {
    const child = await startSleeper();
    const address = newAddress();
    writeRecord(address, child.pid, tokenOf(child.pid));

    expect(listed(address)).toMatchObject({ liveness: "alive", self: false, cwd: scratch });
    expect(recordExists(address)).toBe(true);

    const exit = await child.kill();
    expect(exit.signal).toBe("SIGKILL");
    expect(listed(address)).toBeUndefined();
    expect(recordExists(address)).toBe(false);
  });

  it("a process that exited but is not reaped yet (a zombie) is judged gone even with its own start token", async () => {
    // sh starts a child, then becomes `sleep`, which never waits for children: once the child is
    // killed after that exec, it stays a zombie until its parent ends.
    const parent = spawnProcess("sh", ["-c", 'sleep 60 & echo "$!"; exec sleep 61'], {});
    await parent.waitFor("the child's pid", (lines) => /^\d+$/.test(lines[0] ?? ""), waitMs);
    const child = Number(parent.lines[0]);
    try {
      await waitUntil("sh became sleep", () => procText(`${parent.pid}/cmdline`) === "sleep\u000061\u0000", waitMs);
      const address = newAddress();
      writeRecord(address, child, tokenOf(child));
      expect(listed(address)).toMatchObject({ liveness: "alive" });

      process.kill(child, "SIGKILL");
      await waitUntil("the child is a zombie", () => /\) Z /.test(procText(`${child}/stat`)), waitMs);
      // kill(pid, 0) still succeeds on a zombie: only its state in /proc tells that it is dead.
      expect(() => process.kill(child, 0)).not.toThrow();
      expect(listed(address)).toBeUndefined();
      expect(recordExists(address)).toBe(false);
    } finally {
      // Killed while its parent still runs, so the pid cannot have been reused; then the parent.
      killQuietly(child);
      await parent.kill();
    }
  });

  it("a record without a start token is judged by its pid alone: kept while the pid runs, deleted once it does not", async () => {
    const child = await startSleeper();
    const address = newAddress();
    writeRecord(address, child.pid, undefined);
    expect(listed(address)).toMatchObject({ liveness: "alive" });
    expect(recordExists(address)).toBe(true);
    await child.kill();
    expect(listed(address)).toBeUndefined();
    expect(recordExists(address)).toBe(false);
  });
});
