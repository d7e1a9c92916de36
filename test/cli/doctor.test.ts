// `switchboard doctor` as a real process on a mail root and a bus with each problem planted: what it
// reports (text and --json), its exit code, and what --fix changes (modes, stale records) and leaves.
import { chmodSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSessionRecord } from "../../src/domain/bus/records.js";
import { createSandbox, type Sandbox } from "../e2e/harness/sandbox.js";
import { runCli } from "./cli-process.js";

interface Report {
  problems: number;
  findings: Array<{ check: string; status: string; text: string; fix?: string }>;
}

/** A pid no process has: above the kernel's largest. */
const deadPid = 4_194_305;
const closedSession = "0190d4d4-9999-7000-8000-0000000000d4";
const staleSession = "0190e5e5-9999-7000-8000-0000000000e5";

describe("switchboard doctor on planted problems", () => {
  let sandbox: Sandbox;
  let root: string;
  let bus: string;

  beforeAll(() => {
    sandbox = createSandbox();
    root = join(sandbox.state, "pi-session-mail");
    for (const box of ["tmp", "new", "cur", "sent"])
      mkdirSync(join(root, closedSession, box), { recursive: true, mode: 0o700 });
    mkdirSync(join(root, "running"), { mode: 0o700 });
    chmodSync(root, 0o755);
    chmodSync(join(root, closedSession), 0o777);
    const record = {
      address: staleSession,
      cwd: sandbox.home,
      pid: deadPid,
      state: "idle",
      waitingOn: "",
      updated: new Date().toISOString(),
    };
    writeFileSync(join(root, "running", `${staleSession}.json`), JSON.stringify(record), { mode: 0o600 });
    const leftover = join(root, closedSession, "tmp", "half-written");
    writeFileSync(leftover, "{", { mode: 0o600 });
    utimesSync(leftover, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `{ "hopLimit": 3, "hoplimit": 4 }\n`);
    bus = join(sandbox.agentDir, "session-bus", "shop-0123456789abcdef");
    for (const folder of ["sessions", "inbox", "claims", "offers", "tmp"])
      mkdirSync(join(bus, folder), { recursive: true, mode: 0o700 });
    chmodSync(join(bus, "inbox"), 0o777);
    const member = {
      id: staleSession,
      label: "ghost",
      pid: deadPid,
      joinToken: "0190e5e5-0000-7000-8000-000000000001",
      cwd: sandbox.home,
      root: sandbox.home,
      armed: true,
      wake: false,
      joinedAt: new Date().toISOString(),
    };
    writeFileSync(join(bus, "sessions", `${staleSession}.json`), encodeSessionRecord(member), { mode: 0o600 });
    const busLeftover = join(bus, "tmp", "half-made-claim");
    writeFileSync(busLeftover, "", { mode: 0o600 });
    utimesSync(busLeftover, new Date(Date.now() - 2 * 3600_000), new Date(Date.now() - 2 * 3600_000));
  });

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it("reports each planted problem with its fix, and exits 1", async () => {
    const run = await runCli(sandbox, ["doctor", "--json"]);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout) as Report;
    const find = (check: string, pattern: RegExp) =>
      report.findings.find((f) => f.check === check && pattern.test(f.text));
    expect(find("root", /is open to other users \(mode 755\)/)).toMatchObject({
      status: "problem",
      fix: expect.stringMatching(/^chmod 700 /),
    });
    expect(find("folders", new RegExp(`${closedSession} is open to other users \\(mode 777\\)`))).toMatchObject({
      status: "problem",
    });
    // A record of a dead process is removed by reading it, as every session's listing does.
    expect(find("records", /Removed 1 running record\(s\) of processes that are gone/)).toMatchObject({
      status: "fixed",
    });
    expect(find("tmp", /^1 file\(s\) older than an hour/)).toMatchObject({ status: "warn" });
    expect(find("tmp", /shop-0123456789abcdef: 1 file\(s\) older than an hour in tmp\//)).toMatchObject({
      status: "warn",
    });
    expect(find("prune", /1 mailbox folder\(s\) of closed sessions/)).toMatchObject({ status: "warn" });
    expect(find("settings", /unknown key|hoplimit/)).toMatchObject({ status: "problem" });
    // Opening the bus closes its open folders, as every session does; the report says so.
    expect(find("bus", /inbox was open to other users \(mode 777\): closed 1 folder/)).toMatchObject({
      status: "fixed",
    });
    expect(find("bus", /1 member record\(s\) of sessions that are gone \(ghost\)/)).toMatchObject({ status: "warn" });
    expect(find("watch", /works/)).toMatchObject({ status: "ok" });
    expect(find("filesystem", /local file system/)).toMatchObject({ status: "ok" });
    expect(report.problems).toBe(report.findings.filter((f) => f.status === "problem").length);
    // The text for people says the same, one line each, with the fix under it.
    const text = await runCli(sandbox, ["doctor"]);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/^PROBLEM {2}.* is open to other users \(mode 755\)\.\n {9}fix: chmod 700 /m);
    expect(text.stdout).toMatch(/\n\d problem\(s\)\.\n$/);
  });

  it("--fix closes the folders and removes the stale bus record, says so, and leaves the rest", async () => {
    const fixed = JSON.parse((await runCli(sandbox, ["doctor", "--fix", "--json"])).stdout) as Report;
    expect(fixed.findings.filter((f) => f.status === "fixed").map((f) => f.check)).toEqual(["root", "folders", "bus"]);
    expect(statSync(root).mode & 0o777).toBe(0o700);
    expect(statSync(join(root, closedSession)).mode & 0o777).toBe(0o700);
    expect(statSync(join(bus, "inbox")).mode & 0o777).toBe(0o700);
    // What --fix never touches: the settings file (a person's), the leftovers and the closed folder.
    expect(fixed.findings.filter((f) => f.status === "problem").map((f) => f.check)).toEqual(["settings"]);
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `{ "hopLimit": 3 }\n`);
    const after = await runCli(sandbox, ["doctor"]);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/\nNo problems\.\n$/);
  });
});

describe("switchboard doctor on the path to the mail root", () => {
  let sandbox: Sandbox;

  beforeAll(() => {
    sandbox = createSandbox();
  });

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it("a root that is a link: noted with where sessions read; a folder above the root open to others: a problem", async () => {
    const real = join(sandbox.root, "elsewhere", "mail");
    mkdirSync(real, { recursive: true, mode: 0o700 });
    chmodSync(join(sandbox.root, "elsewhere"), 0o700);
    symlinkSync(real, join(sandbox.state, "pi-session-mail"));
    const linked = JSON.parse((await runCli(sandbox, ["doctor", "--json"])).stdout) as Report;
    expect(linked.findings.find((f) => f.check === "root")).toMatchObject({
      status: "warn",
      text: `${join(sandbox.state, "pi-session-mail")} is a link to ${real}; sessions use that folder, and stop reading mail if the link is pointed elsewhere.`,
    });
    // The folder it leads to is checked as the root: open to others is a problem, and --fix closes it.
    chmodSync(real, 0o777);
    const open = JSON.parse((await runCli(sandbox, ["doctor", "--json"])).stdout) as Report;
    expect(open.findings.find((f) => f.status === "problem")).toMatchObject({
      check: "root",
      text: `${real} is open to other users (mode 777).`,
    });
    expect((await runCli(sandbox, ["doctor", "--fix"])).code).toBe(0);
    expect(statSync(real).mode & 0o777).toBe(0o700);
    // Another user could swap the root out from under the sessions through a folder above it.
    chmodSync(sandbox.state, 0o777);
    const above = await runCli(sandbox, ["doctor", "--json"]);
    expect(above.code).toBe(1);
    const report = JSON.parse(above.stdout) as Report;
    expect(report.findings.find((f) => f.status === "problem")?.text).toContain(sandbox.state);
    chmodSync(sandbox.state, 0o700);
  });

  it("the path to a root not made yet, a relative root and a link to nothing: each a problem with its fix", async () => {
    const open = join(sandbox.root, "open-state");
    mkdirSync(open, { mode: 0o700 });
    chmodSync(open, 0o777);
    const above = JSON.parse(
      (await runCli(sandbox, ["doctor", "--json"], { env: { XDG_STATE_HOME: open } })).stdout,
    ) as Report;
    expect(above.findings.filter((f) => f.status === "problem")).toEqual([
      expect.objectContaining({
        check: "path",
        fix: `chmod go-w ${open} (or set XDG_STATE_HOME to a folder under one only you can change)`,
      }),
    ]);
    const relative = await runCli(sandbox, ["doctor", "--json"], { env: { HOME: "", XDG_STATE_HOME: "" } });
    expect((JSON.parse(relative.stdout) as Report).findings.filter((f) => f.status === "problem")).toEqual([
      expect.objectContaining({ check: "path", fix: "set XDG_STATE_HOME (or HOME) to an absolute path" }),
    ]);
    const dangling = join(sandbox.root, "dangling-state");
    mkdirSync(dangling, { mode: 0o700 });
    symlinkSync(join(sandbox.root, "nowhere"), join(dangling, "pi-session-mail"));
    const nowhere = JSON.parse(
      (await runCli(sandbox, ["doctor", "--json"], { env: { XDG_STATE_HOME: dangling } })).stdout,
    ) as Report;
    expect(nowhere.findings.filter((f) => f.status === "problem")).toEqual([
      {
        check: "root",
        status: "problem",
        text: `${join(dangling, "pi-session-mail")} is a link that leads nowhere.`,
        fix: "remove the link; the first session makes the folder",
      },
    ]);
  });

  it("a damaged shell address file: doctor names it with its fix, and send says what to do", async () => {
    const state = join(sandbox.root, "damaged-state");
    mkdirSync(join(state, "pi-session-mail"), { recursive: true, mode: 0o700 });
    const file = join(state, "pi-session-mail", ".switchboard-shell");
    writeFileSync(file, "not an address\n");
    const env = { XDG_STATE_HOME: state };
    const doctor = JSON.parse((await runCli(sandbox, ["doctor", "--json"], { env })).stdout) as Report;
    expect(doctor.findings.filter((f) => f.status === "problem")).toEqual([
      {
        check: "root",
        status: "problem",
        text: `${file} does not hold the shell's address: switchboard send and ask fail until it goes.`,
        fix: `rm -r ${file} (the next send or ask makes a new one)`,
      },
    ]);
    const sent = await runCli(sandbox, ["send", "0190f6f6-9999-7000-8000-0000000000f6", "hi"], { env });
    expect(sent).toMatchObject({
      code: 1,
      stderr: `switchboard: ${file} does not hold the shell's address (it is damaged). Remove it: the next send or ask makes a new one.\n`,
    });
  });

  it("a file where the root, or a folder above it, must be: a problem doctor explains and every other command refuses", async () => {
    const file = join(sandbox.root, "state-file");
    writeFileSync(file, "not a folder\n");
    for (const [state, text] of [
      [file, `${file} is not a folder, so the mail root ${join(file, "pi-session-mail")} cannot be made.`],
      [
        join(sandbox.root, "holds-a-file"),
        `${join(sandbox.root, "holds-a-file", "pi-session-mail")} is not a real folder.`,
      ],
    ] as const) {
      mkdirSync(join(sandbox.root, "holds-a-file"), { recursive: true, mode: 0o700 });
      writeFileSync(join(sandbox.root, "holds-a-file", "pi-session-mail"), "");
      const env = { XDG_STATE_HOME: state };
      const doctor = await runCli(sandbox, ["doctor", "--json"], { env });
      expect(doctor.code).toBe(1);
      expect(
        (JSON.parse(doctor.stdout) as Report).findings.filter((f) => f.status === "problem").map((f) => f.text),
      ).toEqual([text]);
      const list = await runCli(sandbox, ["list"], { env });
      expect(list).toMatchObject({ code: 1, stdout: "" });
      expect(list.stderr).toMatch(/^switchboard: the mail root .* \(switchboard doctor says more\)\.\n$/);
    }
  });
});
