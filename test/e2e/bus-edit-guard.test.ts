// Claims that hold at the model's edits, between real `pi --mode rpc` processes on one repository:
// a live holder's path is refused to the edit and write of a joined and of an unjoined session, the
// holder's own edit goes through, a gone holder's claim stops nobody, a stopped (SIGSTOP) holder's
// claim still does, and a joined session's edit claims the file it touches (observed).
import { readdirSync, readFileSync, realpathSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  callSession,
  gitRepository,
  readClaims,
  sessionOk,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { createSandbox, type PiSession, type Sandbox } from "./harness/rpc-session.js";

const lead = { id: "0190e0e0-0000-7000-8000-00000000a001", folder: "guard" };
const peer = { id: "0190e1e1-0000-7000-8000-00000000b002", folder: "guard" };
const solo = { id: "0190e2e2-0000-7000-8000-00000000c003", folder: "guard" };
const gone = { id: "0190e3e3-0000-7000-8000-00000000d004", folder: "guard" };

const edit = (path: string) => ({ path, edits: [{ oldText: "one", newText: "two" }] });

describe("the edit check between real Pi sessions", () => {
  let sandbox: Sandbox;
  let repo: string;
  let l: PiSession;
  let p: PiSession;
  let s: PiSession;
  let g: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    repo = realpathSync(gitRepository(sandbox, "guard"));
    for (const name of ["a.ts", "b.ts", "c.ts", "d.ts"]) writeFileSync(join(repo, name), "one\n");
    [l, p, s, g] = (await startBusSessions(sandbox, [lead, peer, solo, gone])) as [
      PiSession,
      PiSession,
      PiSession,
      PiSession,
    ];
    await sessionOk(l, { action: "join", label: "lead" });
    await sessionOk(l, { action: "claim", paths: ["a.ts"] });
    await sessionOk(p, { action: "join", label: "peer" });
  }, startTimeoutMs * 3);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("refuses edit and write of a live holder's file to a joined and to an unjoined session; the file is untouched", async () => {
    for (const session of [p, s]) {
      const edited = await callSession(session, edit("a.ts"), "edit");
      expect(edited.isError).toBe(true);
      expect(edited.text).toMatch(/^Blocked: a\.ts is claimed by lead \(session 0190e0e0\) /);
      expect(edited.text).toMatch(/Do not retry this edit: ask lead for the file/);
      const written = await callSession(session, { path: join(repo, "a.ts"), content: "x" }, "write");
      expect(written.isError).toBe(true);
      expect(written.text).toMatch(/^Blocked: a\.ts is claimed by lead/);
    }
    expect(readFileSync(join(repo, "a.ts"), "utf8")).toBe("one\n");
  });

  it("lets the holder edit its own file", async () => {
    const edited = await callSession(l, edit("a.ts"), "edit");
    expect(edited.isError).toBe(false);
    expect(readFileSync(join(repo, "a.ts"), "utf8")).toBe("two\n");
  });

  it("a joined session's edit claims the file (observed), and a peer's write of it is then refused", async () => {
    expect((await callSession(p, edit("b.ts"), "edit")).isError).toBe(false);
    const observed = readClaims(busFolder(sandbox)).filter((c) => c.key === "b.ts");
    expect(observed.map((c) => c.owner)).toContain(peer.id);
    const refused = await callSession(s, { path: "b.ts", content: "x" }, "write");
    expect(refused.text).toMatch(
      /^Blocked: b\.ts is claimed by peer \(taken by its edits: it lapses 15 minutes after peer's last edit there\)/,
    );
    // An unjoined session's edit claims nothing.
    expect((await callSession(s, edit("c.ts"), "edit")).isError).toBe(false);
    expect(readClaims(busFolder(sandbox)).filter((c) => c.key === "c.ts")).toEqual([]);
  });

  it("an observed claim lapses 15 minutes after its holder's last edit: then another session's edit goes through", async () => {
    const claims = join(busFolder(sandbox), "claims");
    const ofB = readdirSync(claims).filter((name) => name.includes("b.ts") && name.includes(peer.id));
    expect(ofB.some((name) => name.startsWith("!"))).toBe(true);
    // Its last edit, 16 minutes ago (the names are links of one file: its mtime is the last edit).
    const past = new Date(Date.now() - 16 * 60_000);
    utimesSync(join(claims, ofB[0] ?? ""), past, past);
    const written = await callSession(s, { path: "b.ts", content: "three\n" }, "write");
    expect(written.isError).toBe(false);
    expect(readFileSync(join(repo, "b.ts"), "utf8")).toBe("three\n");
  });

  it("a shell write to a claimed file is named in the tool result and told to its holder", async () => {
    const ran = await callSession(s, { command: "echo x >> a.ts" }, "bash");
    expect(ran.text).toMatch(
      /\[session-bus\] This command changed files another session has claimed: \S+\/a\.ts \(changed; claimed by lead/,
    );
    const inbox = await sessionOk(l, { action: "inbox" });
    expect(inbox).toMatch(
      /shell command changed files under your claims: \S+\/a\.ts \(changed\)\. The command: echo x >> a\.ts/,
    );
    const quiet = await callSession(s, { command: "echo y > unclaimed.txt" }, "bash");
    expect(quiet.text).not.toContain("[session-bus]");
  });

  it("a stopped holder's claim still holds; a holder killed with -9 holds nothing", async () => {
    await sessionOk(g, { action: "claim", paths: ["d.ts"] });
    g.kill("SIGSTOP");
    try {
      expect((await callSession(s, edit("d.ts"), "edit")).text).toMatch(/^Blocked: d\.ts is claimed by /);
    } finally {
      g.kill("SIGCONT");
    }
    g.kill("SIGKILL");
    await g.exited;
    expect((await callSession(s, edit("d.ts"), "edit")).isError).toBe(false);
    expect(readFileSync(join(repo, "d.ts"), "utf8")).toBe("two\n");
  });
});
