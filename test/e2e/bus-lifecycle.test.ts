// Membership over a session's life between real `pi --mode rpc` processes: two worktrees of one
// repository share one bus and one claim space; a peer killed with kill -9 reads gone at once (its
// claims and label free, mail to it refused); a reload keeps the membership and its listening;
// new_session, a resume and a quit leave the bus. Four sessions, started once: three in the repository, one
// in a linked worktree.
import { realpathSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  busKeys,
  busNotices,
  claimKeysOf,
  countType,
  gitRepository,
  gitWorktree,
  piState,
  readRecords,
  recordOf,
  reloadedNotice,
  runTimeoutMs,
  sessionName,
  sessionOk,
  sessionRefused,
  startBusSessions,
  startTimeoutMs,
  writeReloadExtension,
} from "./bus-support.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import { within } from "./harness/within.js";
import { notices } from "./mail-support.js";

const main = { id: "01902020-0000-7000-8000-000000002001", folder: "lc" };
const doomed = { id: "01903030-0000-7000-8000-000000003002", folder: "lc" };
const tree = { id: "01904040-0000-7000-8000-000000004003", folder: "lc-wt" };
const reloader = { id: "01905050-0000-7000-8000-000000005004", folder: "lc" };

describe("membership over a session's life: worktrees, kill -9, reload, new_session, resume, quit", () => {
  let sandbox: Sandbox;
  let p: PiSession;
  let k: PiSession;
  let t: PiSession;
  let r: PiSession;
  let bus: string;
  let lc: string;
  let lcWt: string;
  /** The reloader's first session file (a resume goes back to it) and the session new_session made. */
  let reloaderFile: string | undefined;
  let freshId: string;

  beforeAll(async () => {
    sandbox = createSandbox();
    lc = realpathSync(gitRepository(sandbox, "lc"));
    lcWt = realpathSync(gitWorktree(sandbox, "lc", "lc-wt"));
    const reload = writeReloadExtension(sandbox);
    [p, k, t, r] = (await startBusSessions(sandbox, [main, doomed, tree, { ...reloader, extensions: [reload] }])) as [
      PiSession,
      PiSession,
      PiSession,
      PiSession,
    ];
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("two worktrees share one bus folder, and the same repo-relative path claimed from each conflicts", async () => {
    expect(await sessionOk(p, { action: "claim", paths: ["src/shared.ts"] })).toBe("Claimed src/shared.ts.");
    // The first release joins too, under the worktree folder's name.
    expect(await sessionOk(t, { action: "release", paths: ["src/none.ts"] })).toBe("Not claimed: src/none.ts.");
    expect(busKeys(sandbox)).toEqual([expect.stringMatching(/^lc-[0-9a-f]{16}$/)]);
    bus = busFolder(sandbox);
    expect(recordOf(bus, main.id)).toMatchObject({ label: "lc", cwd: lc, root: lc });
    expect(recordOf(bus, tree.id)).toMatchObject({ label: "lc-wt", cwd: lcWt, root: lcWt });

    expect(await sessionRefused(t, { action: "claim", paths: ["src/shared.ts"] })).toBe(
      "Nothing claimed: src/shared.ts is claimed by lc.",
    );
    expect(await sessionRefused(t, { action: "claim", paths: [`${lcWt}/src`] })).toBe(
      "Nothing claimed: src overlaps src/shared.ts, claimed by lc.",
    );
    expect(await sessionOk(t, { action: "claim", paths: ["src/other.ts"] })).toBe("Claimed src/other.ts.");
    expect(claimKeysOf(bus, main.id)).toEqual(["src/shared.ts"]);
    expect(claimKeysOf(bus, tree.id)).toEqual(["src/other.ts"]);
  });

  it("a peer killed with kill -9 reads gone at once: mail to it is refused, its claims and its label are free", async () => {
    await sessionOk(k, { action: "join", label: "doomed" });
    expect(await sessionOk(k, { action: "claim", paths: ["src/k.ts"] })).toBe("Claimed src/k.ts.");
    expect(recordOf(bus, doomed.id)).toMatchObject({ label: "doomed", pid: k.pid });
    k.kill("SIGKILL");
    expect(await within(k.exited, 10_000)).toBe(true);
    expect((await k.exited).signal).toBe("SIGKILL");

    const status = await sessionOk(p, { action: "status" });
    expect(status.split("\n")).toContain(
      `- doomed (${doomed.id.slice(0, 8)}) · gone: its process ended; its label and paths are free`,
    );
    expect(status).not.toContain("src/k.ts");
    expect(await sessionRefused(p, { action: "send", to: "doomed", text: "are you there?" })).toBe(
      `no active session: doomed (${doomed.id}) is gone, so nothing was sent.`,
    );
    expect(await sessionRefused(p, { action: "send", to: doomed.id, text: "by id?" })).toBe(
      `no active session: doomed (${doomed.id}) is gone, so nothing was sent.`,
    );
    expect(await sessionOk(p, { action: "claim", paths: ["src/k.ts"] })).toBe("Claimed src/k.ts.");
    expect(claimKeysOf(bus, doomed.id)).toEqual([]);
    expect(claimKeysOf(bus, main.id)).toEqual(["src/k.ts", "src/shared.ts"]);

    expect(await sessionOk(t, { action: "join", label: "doomed" })).toBe(
      `On the bus as doomed (was lc-wt) (${tree.id.slice(0, 8)}); next turn: new mail is reported with the next prompt. Pi's session name is now doomed. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    // The gone row stays until its heartbeat ages out, so a lead sees what died.
    expect(recordOf(bus, doomed.id)?.label).toBe("doomed");
  });

  it("a reload keeps the membership: the record, its join token, its claims, and the wake it listens with", async () => {
    await sessionOk(r, { action: "join", label: "reloader", wake: true });
    await sessionOk(r, { action: "claim", paths: ["src/r.ts"] });
    const before = recordOf(bus, reloader.id);
    expect(before).toMatchObject({ label: "reloader", armed: true, wake: true, pid: r.pid });

    const since = r.mark();
    expect((await r.request({ type: "prompt", message: "/bus-e2e-reload" })).success).toBe(true);
    await r.waitFor((e) => e.type === "extension_ui_request" && e.message === reloadedNotice, runTimeoutMs, {
      since,
      what: "the runtime started by the reload",
    });
    expect(recordOf(bus, reloader.id)).toEqual(before);
    expect(claimKeysOf(bus, reloader.id)).toEqual(["src/r.ts"]);
    expect(await sessionName(r)).toBe("reloader");
    reloaderFile = (await piState(r)).sessionFile;

    const woken = r.mark();
    await sessionOk(p, { action: "send", to: "reloader", text: "still there after the reload?" });
    await r.waitFor((e) => e.type === "agent_settled", runTimeoutMs, { since: woken, what: "the wake after reload" });
    const run = r.events.slice(woken);
    expect(countType(run, "agent_start")).toBe(1);
    expect(busNotices(run).map((n) => n.delivery)).toEqual(["wake"]);
  });

  it("new_session leaves the bus: the record and every claim go, and the new session is not on it", async () => {
    expect(claimKeysOf(bus, reloader.id)).toEqual(["src/r.ts"]);
    const response = await r.request({ type: "new_session" });
    expect(response).toMatchObject({ success: true, data: { cancelled: false } });
    expect(recordOf(bus, reloader.id)).toBeUndefined();
    expect(claimKeysOf(bus, reloader.id)).toEqual([]);
    // The person is told what the leaving freed.
    expect(notices(r.events)).toContainEqual({
      message:
        "session-bus: this session left the bus and released 1 claim: src/r.ts. Other sessions may claim them now.",
      level: "info",
    });
    const fresh = await piState(r);
    expect(fresh.sessionId).not.toBe(reloader.id);
    freshId = fresh.sessionId;

    expect(await sessionOk(r, { action: "status" })).toMatch(/^This session is not on the bus: /);
    expect(readRecords(bus).map((rec) => rec.id)).not.toContain(freshId);
    expect(await sessionOk(p, { action: "status" })).not.toContain("reloader");
    // Its label is free at once.
    expect(await sessionOk(r, { action: "join", label: "reloader" })).toMatch(/^On the bus as reloader \(/);
    expect(recordOf(bus, freshId)?.label).toBe("reloader");
  });

  it("switch_session (a resume) leaves the bus too; the resumed session is off it until it joins, then derives its label from its name", async () => {
    expect(reloaderFile).toBeDefined();
    const response = await r.request({ type: "switch_session", sessionPath: reloaderFile });
    expect(response).toMatchObject({ success: true, data: { cancelled: false } });
    expect(recordOf(bus, freshId)).toBeUndefined();
    expect(await piState(r)).toMatchObject({ sessionId: reloader.id, sessionName: "reloader" });
    expect(recordOf(bus, reloader.id)).toBeUndefined();
    expect(await sessionOk(r, { action: "status" })).toMatch(/^This session is not on the bus: /);

    expect(await sessionOk(r, { action: "join" })).toBe(
      `On the bus as reloader (${reloader.id.slice(0, 8)}); next turn: new mail is reported with the next prompt. Files you edit are claimed for you (observed: each lapses 15 minutes after your last edit of it).`,
    );
    expect(recordOf(bus, reloader.id)).toMatchObject({ label: "reloader", pid: r.pid, armed: true, wake: false });
  });

  it("a session that quits (stdin closed) leaves the bus: its record and claims go, and peers no longer list it", async () => {
    expect(claimKeysOf(bus, tree.id)).toEqual(["src/other.ts"]);
    const status = await t.close(10_000);
    expect(status.code).toBe(0);
    expect(recordOf(bus, tree.id)).toBeUndefined();
    expect(claimKeysOf(bus, tree.id)).toEqual([]);
    expect(notices(t.events)).toContainEqual({
      message:
        "session-bus: this session left the bus and released 1 claim: src/other.ts. Other sessions may claim them now.",
      level: "info",
    });
    const listed = await sessionOk(p, { action: "status" });
    expect(listed).not.toContain(tree.id);
    expect(notices(t.events).filter((n) => n.level === "error")).toEqual([]);
  });

  it("no session wrote anything unexpected to stderr", () => {
    for (const pi of [p, k, t, r]) expect(unexpectedStderr(pi.stderr), `stderr of ${pi.sessionId}`).toEqual([]);
  });
});
