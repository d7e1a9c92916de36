// Shell writes between real `pi --mode rpc` processes: a session that never joined runs `bash` as its
// first tool (the bus's core loads for it then), the command appends to a file a live peer claims,
// and both sides are told: the model in the command's result (the file, whose claim, what to do), the
// holder by an event naming the file, the writer and the command. A command that touches nothing
// claimed adds nothing to its result, and the writer stays off the bus throughout.
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  callSession,
  gitRepository,
  readInbox,
  readRecords,
  sessionOk,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { createSandbox, type PiSession, type Sandbox } from "./harness/rpc-session.js";

const holder = { id: "0190e5e5-0000-7000-8000-00000000a001", folder: "shell" };
const writer = { id: "0190e6e6-0000-7000-8000-00000000b002", folder: "shell" };

describe("a shell write to a claimed file, between real Pi sessions", () => {
  let sandbox: Sandbox;
  let repo: string;
  let a: PiSession;
  let b: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    repo = realpathSync(gitRepository(sandbox, "shell"));
    mkdirSync(join(repo, "src"));
    writeFileSync(join(repo, "src/a.ts"), "one\n");
    [a, b] = (await startBusSessions(sandbox, [holder, writer])) as [PiSession, PiSession];
    await sessionOk(a, { action: "join", label: "lead" });
    await sessionOk(a, { action: "claim", paths: ["src/a.ts"] });
  }, startTimeoutMs * 2);

  afterAll(async () => {
    // Ends every Pi process it started, by pid, whatever the tests did.
    await sandbox?.cleanup();
  }, 30_000);

  it("names the file and the claim in the writer's result, and tells the holder who ran what", async () => {
    const ran = await callSession(b, { command: "echo x >> src/a.ts" }, "bash");
    expect(readFileSync(join(repo, "src/a.ts"), "utf8")).toBe("one\nx\n");
    expect(ran.text).toContain(
      `[session-bus] This command changed files another session has claimed: ${repo}/src/a.ts (changed; claimed by lead, session 0190e5e5)`,
    );
    expect(ran.text).toMatch(/Undo your change to them, or ask lead with the session tool \(action "send"\)/);
    const events = readInbox(busFolder(sandbox), holder.id);
    expect(events.map(({ from, fromLabel, kind, paths }) => ({ from, fromLabel, kind, paths }))).toEqual([
      { from: writer.id, fromLabel: "session 0190e6e6", kind: "event", paths: ["src/a.ts"] },
    ]);
    expect(events[0]?.text).toBe(
      `session 0190e6e6's shell command changed files under your claims: ${repo}/src/a.ts (changed). The command: echo x >> src/a.ts`,
    );
    // The holder's model reads it in its inbox; the writer never joined to send it.
    expect(await sessionOk(a, { action: "inbox" })).toMatch(
      /^event from session 0190e6e6 \(0190e6e6\)[^\n]*\n[^\n]*shell command changed files under your claims: \S+\/src\/a\.ts \(changed\)\. The command: echo x >> src\/a\.ts/,
    );
    expect(readRecords(busFolder(sandbox)).map((r) => r.id)).toEqual([holder.id]);
  });

  it("adds nothing to the result of a command that touched no claimed file", async () => {
    const quiet = await callSession(b, { command: "echo y > src/b.ts && cat src/a.ts" }, "bash");
    expect(quiet.isError).toBe(false);
    expect(quiet.text).not.toContain("[session-bus]");
    expect(readInbox(busFolder(sandbox), holder.id)).toEqual([]);
  });
});
