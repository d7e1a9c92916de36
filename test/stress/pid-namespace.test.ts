// Issue 8 §3: a session in another pid namespace (a sandbox with --unshare-pid, a container sharing
// the mail root) and one outside share a mail root. Each recorded a pid the other cannot check:
// inside, the session is pid 1, which outside is init; the host's pid names nothing inside. Each
// side must keep the other's record and folder (the record says which namespace its pid is in).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { ListedSession, MailboxEngine } from "../../src/domain/mail/engine/index.js";
import { createNodeMailbox } from "../../src/wiring/node-mailbox.js";
import { bundleWorkers, type WorkerBundle } from "./harness/bundle-workers.js";
import { killAllWorkers, spawnProcess, type Worker } from "./harness/children.js";
import { newAddress } from "./harness/mail.js";

const waitMs = 15_000;
/** --kill-child: the session inside dies with unshare, which the test kills by pid. */
const unshareArgs = ["--pid", "--fork", "--mount-proc", "--kill-child"];
const unshareWorks =
  process.platform === "linux" &&
  spawnSync("unshare", [...unshareArgs, "true"], { stdio: "ignore", timeout: 5_000 }).status === 0;

let bundle: WorkerBundle | undefined;
let scratch: string;
let root: string;
let host: MailboxEngine;
const hostAddress = newAddress();

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "stress-pid-namespace-"));
  root = join(scratch, "mail");
  if (!unshareWorks) return;
  bundle = await bundleWorkers(["idle-session"]);
  host = createNodeMailbox({
    host: { inject: () => {}, notify: () => {}, setStatus: () => {}, hasShown: () => false },
    agentDir: join(scratch, "agent"),
    root,
    watch: false,
    pollIntervalMs: 60_000,
  });
  host.sessionStarted({ address: hostAddress, name: "host", cwd: scratch });
});

afterEach(async () => {
  await killAllWorkers();
});

afterAll(async () => {
  host?.shutdown();
  await killAllWorkers();
  bundle?.dispose();
  await rm(scratch, { recursive: true, force: true });
});

/** A session inside a new pid namespace (where it is pid 1), on the shared mail root. */
async function startSandboxed(address: string): Promise<Worker> {
  const env = { ROOT: root, ADDRESS: address, AGENT_DIR: join(scratch, "agent-inside"), NAME: "sandboxed" };
  const worker = spawnProcess("unshare", [...unshareArgs, process.execPath, bundle!.scripts["idle-session"]], env);
  await worker.waitFor("ready", (lines) => lines.some((l) => l.startsWith("ready ")), waitMs);
  return worker;
}

async function ask(worker: Worker, command: "list" | "prune", reply: string): Promise<string> {
  const before = worker.lines.length;
  worker.send(command);
  await worker.waitFor(reply, (lines) => lines.slice(before).some((l) => l.startsWith(`${reply} `)), waitMs);
  return worker.lines
    .slice(before)
    .find((l) => l.startsWith(`${reply} `))!
    .slice(reply.length + 1);
}

const recordPath = (address: string) => join(root, "running", `${address}.json`);

const title = unshareWorks
  ? "sessions in two pid namespaces on one mail root"
  : "sessions in two pid namespaces on one mail root (skipped: unshare --pid --fork --mount-proc is not permitted here)";

describe.runIf(unshareWorks)(title, () => {
  it("the host keeps the sandboxed session's record and folder, though its pid 1 is init out here", async () => {
    const inside = newAddress();
    const worker = await startSandboxed(inside);
    const [, pid, namespace] = worker.lines.find((l) => l.startsWith("ready "))!.split(" ");
    expect(pid).toBe("1");
    expect(namespace).not.toBe(readlinkSync("/proc/self/ns/pid"));
    const record = JSON.parse(readFileSync(recordPath(inside), "utf8")) as Record<string, unknown>;
    expect(record.pid).toBe(1);

    // Soft: each fact that breaks is reported (before the fix: listed gone, record deleted, folder pruned).
    const listed = host.list().find((s) => s.address === inside);
    expect.soft(listed).toMatchObject({ name: "sandboxed", liveness: "unknown", elsewhere: true });
    expect.soft(existsSync(recordPath(inside))).toBe(true);
    // Read mail in cur/, which a prune would take with the folder.
    const readMail = join(root, inside, "cur", "000000000000001-read.json");
    writeFileSync(readMail, "{}", { mode: 0o600 });
    expect.soft(host.prune()._unsafeUnwrap()).toBe(0);
    expect.soft(existsSync(readMail)).toBe(true);
    expect.soft(existsSync(recordPath(inside))).toBe(true);
    // What lets the host tell: the namespace its pid is in, in an extra field of the record.
    expect(record.pidNamespace).toBe(namespace);
  });

  it("the sandboxed session keeps the host's record and folder, though the host's pid names nothing inside", async () => {
    const worker = await startSandboxed(newAddress());
    const listed = JSON.parse(await ask(worker, "list", "listed")) as ListedSession[];
    expect.soft(listed.find((s) => s.address === hostAddress)).toMatchObject({ name: "host", elsewhere: true });
    expect.soft(existsSync(recordPath(hostAddress))).toBe(true);
    const readMail = join(root, hostAddress, "cur", "000000000000001-read.json");
    writeFileSync(readMail, "{}", { mode: 0o600 });
    expect.soft(await ask(worker, "prune", "pruned")).toBe("0");
    expect.soft(existsSync(readMail)).toBe(true);
    expect.soft(existsSync(recordPath(hostAddress))).toBe(true);
  });
});
