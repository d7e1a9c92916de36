// Issue 8 §3: a session stopped with Ctrl-Z (SIGSTOP) cannot read mail until it is continued. A
// real session process is stopped: the list shows it stopped, and an ask to it is refused at once,
// writing nothing, instead of waiting 10 minutes; once continued (SIGCONT) it lists as running.
import { mkdtempSync, readFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { MailboxEngine } from "../../src/domain/mail/engine/index.js";
import { describeSessions } from "../../src/pi/mail/roster-texts.js";
import { createNodeMailbox } from "../../src/wiring/node-mailbox.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers, spawnWorker, type Worker, waitUntil } from "./harness/children.js";
import { boxNames, newAddress } from "./harness/mail.js";

const onLinux = process.platform === "linux";
const waitMs = 15_000;
/** Far below the ask's 10 minutes: a refusal is at once, a wait is a wait. */
const refusalMsMax = 2_000;

let bundle: WorkerBundle | undefined;
let scratch: string;
let root: string;
let host: MailboxEngine;
const hostAddress = newAddress();
const stopped = new Set<number>();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "stress-stopped-session-"));
  root = join(scratch, "mail");
  bundle = await bundleWorkers(["idle-session"]);
  host = createNodeMailbox({
    host: { inject: () => {}, notify: () => {}, setStatus: () => {}, hasShown: () => false },
    agentDir: join(scratch, "agent"),
    root,
    watch: false,
    pollIntervalMs: 60_000,
  });
  host.sessionStarted({ address: hostAddress, name: "asker", cwd: scratch });
});

afterEach(async () => {
  // A stopped process still dies of SIGKILL; it is continued first all the same.
  for (const pid of stopped) signalQuietly(pid, "SIGCONT");
  stopped.clear();
  await killAllWorkers();
});

afterAll(async () => {
  host?.shutdown();
  await killAllWorkers();
  bundle?.dispose();
  await rm(scratch, { recursive: true, force: true });
});

function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

/** The state letter of /proc/<pid>/stat (field 3, after the last `)`). */
function procState(pid: number): string {
  const text = readFileSync(`/proc/${pid}/stat`, "latin1");
  return text.slice(text.lastIndexOf(")") + 2, text.lastIndexOf(")") + 3);
}

async function startSession(address: string): Promise<Worker> {
  const env = { ROOT: root, ADDRESS: address, AGENT_DIR: join(scratch, "agent-sleepy"), NAME: "sleepy" };
  const worker = spawnWorker(bundle!.scripts["idle-session"], env);
  await worker.waitFor("ready", (lines) => lines.some((l) => l.startsWith("ready ")), waitMs);
  return worker;
}

async function stop(pid: number): Promise<void> {
  stopped.add(pid);
  process.kill(pid, "SIGSTOP");
  await waitUntil("the session is stopped", () => procState(pid) === "T", waitMs);
}

describe.runIf(onLinux)("a session stopped with SIGSTOP", () => {
  it("lists as stopped, and as running again once continued", async () => {
    const address = newAddress();
    const worker = await startSession(address);
    await stop(worker.pid);
    expect(host.list().find((s) => s.address === address)).toMatchObject({ liveness: "alive", stopped: true });
    expect(describeSessions(host.list())).toMatch(/- sleepy \S+: stopped \(suspended with Ctrl-Z; fg in its terminal/);

    process.kill(worker.pid, "SIGCONT");
    await waitUntil("the session runs again", () => procState(worker.pid) !== "T", waitMs);
    expect(host.list().find((s) => s.address === address)).toMatchObject({ liveness: "alive", stopped: false });
  });

  it("gets no ask: refused at once, nothing in its new/ and no sent copy", async () => {
    const address = newAddress();
    const worker = await startSession(address);
    await stop(worker.pid);
    const controller = new AbortController();
    const startedMs = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<"waited">((resolve) => {
      timer = setTimeout(() => resolve("waited"), refusalMsMax);
    });
    const result = await Promise.race([host.ask("sleepy", "are you there?", controller.signal), waited]);
    // Before the fix the ask waits: stop it, so nothing outlives the test.
    clearTimeout(timer);
    controller.abort();
    expect(result).not.toBe("waited");
    expect(Date.now() - startedMs).toBeLessThan(refusalMsMax);
    if (result === "waited") return;
    expect(result._unsafeUnwrapErr()).toEqual({ kind: "target-stopped", to: address });
    expect(boxNames(root, address, "new")).toEqual([]);
    expect(boxNames(root, hostAddress, "sent")).toEqual([]);
  });
});
