// The `switchboard` program as a real process on a fresh mail root (no session runs): its help, its
// usage errors (exit 2, one line on stderr, never a stack trace), every command's --json parsed, and
// colour only on a terminal without NO_COLOR.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import { commands } from "../../src/cli/commands/index.js";
import { knownShellAddress, slotAddress } from "../../src/cli/shell-address.js";
import type { Address } from "../../src/domain/mail/address.js";
import type { Envelope } from "../../src/domain/mail/envelope.js";
import { e2ePaths } from "../e2e/harness/pi-command.js";
import { createSandbox, type Sandbox } from "../e2e/harness/sandbox.js";
import { mailRoot, waitUntil } from "../e2e/mail-support.js";
import { cliBundle, cliEnv, runCli, startCli } from "./cli-process.js";

const closed = "0190f6f6-9999-7000-8000-0000000000f6";

describe("switchboard, the program", () => {
  let sandbox: Sandbox;

  beforeAll(() => {
    sandbox = createSandbox();
  });

  afterAll(async () => {
    await sandbox?.cleanup();
  });

  it("--help names every command, the exit codes and where it looks", async () => {
    const help = await runCli(sandbox, ["--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    for (const command of commands) expect(help.stdout).toContain(`\n  ${command.words.join(" ")} `);
    expect(help.stdout).toMatch(/\n {2}7 {4}refused: hop limit/);
    expect(help.stdout).toContain("NO_COLOR");
  });

  it("each command's --help shows its usage, its options and an example", async () => {
    for (const command of commands) {
      const words = [...command.words];
      const help = await runCli(sandbox, [...words, "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: switchboard ${words.join(" ")}`));
      expect(help.stdout).toMatch(/\nOptions:\n(.*\n)*? {2}-h, --help +show this help\n/);
      expect(help.stdout).toMatch(/\nExamples?:\n {2}\$ switchboard /);
      expect(await runCli(sandbox, ["help", ...words])).toMatchObject({ code: 0, stdout: help.stdout });
    }
  });

  it("a group's help (bus --help, help bus) lists its commands", async () => {
    const help = await runCli(sandbox, ["bus", "--help"]);
    expect(help).toMatchObject({ code: 0, stderr: "" });
    expect(help.stdout).toMatch(/^Usage: switchboard bus <command> /);
    expect(help.stdout).toMatch(/\n {2}bus send +send a bus message/);
    expect(help.stdout).toMatch(/\n {2}bus inbox +read the shell's bus inbox/);
    expect(await runCli(sandbox, ["help", "bus"])).toMatchObject({ code: 0, stdout: help.stdout });
  });

  it("bad usage exits 2 with one line on stderr naming the fix, never a stack trace", async () => {
    const cases: Array<[string[], RegExp]> = [
      [["frob"], /^switchboard: unknown command "frob"\. Run switchboard --help for the list\.\n$/],
      [["bus", "frob"], /^switchboard: unknown command "bus frob"\./],
      [
        ["bus"],
        /^switchboard: bus needs a command: switchboard bus send, switchboard bus inbox\. Run switchboard bus --help\.\n$/,
      ],
      [["bus", "--json"], /^switchboard: bus needs a command: /],
      [
        ["list", "--frob"],
        /^switchboard: unknown option "--frob" \(text that starts with "-" goes after "--"\)\. Run switchboard list --help\.\n$/,
      ],
      [["send", "bee"], /^switchboard: missing <text\|->\. Run switchboard send --help\.\n$/],
      [["send", "bee", "one", "two"], /^switchboard: unexpected argument "two" \(quote text with spaces\)/],
      [["send", "bee", "   "], /^switchboard: the message is empty\.\n$/],
      [["ask", "bee", "x", "--timeout", "1h"], /^switchboard: --timeout is at most 10m/],
      [["bus", "inbox", "--limit", "0"], /^switchboard: --limit is a whole number from 1 to 200\n$/],
      [["bus", "inbox", "--limit", "0x10"], /^switchboard: --limit is a whole number from 1 to 200\n$/],
      [["bus", "inbox", "*"], /^switchboard: bus inbox reads one member's inbox, not everyone's \(\*\)\.\n$/],
      [["send", "", "hi"], /^switchboard: No recipient given/],
      [["help", "nosuch"], /^switchboard: unknown command "nosuch"\. Run switchboard --help for the list\.\n$/],
      [["--json", "list"], /^switchboard: the command comes first, then its options \(switchboard list --json\)/],
      [["sent", "--from", " "], /^switchboard: --from names no session\.\n$/],
    ];
    for (const [args, stderr] of cases) {
      const run = await runCli(sandbox, args);
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code: 2, stdout: "" });
      expect(run.stderr).toMatch(stderr);
    }
  });

  it("text on stdin that is not UTF-8 is refused as usage, never sent with its bytes replaced", async () => {
    const run = await runCli(sandbox, ["send", closed, "-"], { stdin: Buffer.from([0x68, 0xff, 0xfe, 0x69]) });
    expect(run).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "switchboard: the message on stdin is not UTF-8 text.\n",
    });
  });

  it("text on stdin over the limit is refused as usage, with the limit (not the size of what was read)", async () => {
    const mail = await runCli(sandbox, ["send", closed, "-"], { stdin: "a".repeat(300 * 1024) });
    expect(mail).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "switchboard: the message on stdin is over the limit of 256 KiB.\n",
    });
    const bus = await runCli(sandbox, ["bus", "send", "*", "-", "--kind", "event"], { stdin: "b".repeat(20_000) });
    expect(bus).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "switchboard: the message on stdin is longer than the limit of 4000 characters.\n",
    });
  });

  it("a recipient no running session answers to exits 6 (--json says why on stdout)", async () => {
    const unknown = await runCli(sandbox, ["send", "nobody", "hi"]);
    expect(unknown.code).toBe(6);
    expect(unknown.stderr).toMatch(/^switchboard: No running session is named "nobody"/);
    // Refused before the shell's own mailbox is made: nothing for a prune to find.
    const pruned = await runCli(sandbox, ["prune", "--dry-run", "--json"]);
    expect(JSON.parse(pruned.stdout)).toEqual({ dryRun: true, removed: 0, folders: [] });
    const gone = await runCli(sandbox, ["ask", closed, "hi", "--json"]);
    expect(gone.code).toBe(6);
    expect(JSON.parse(gone.stdout)).toEqual({ outcome: "gone", error: expect.stringMatching(/is not running/) });
  });

  it("every command's --json is one JSON document (tail: one per line)", async () => {
    const queued = JSON.parse((await runCli(sandbox, ["send", closed, "for when you start", "--json"])).stdout);
    expect(queued).toMatchObject({ kind: "request", to: closed, running: false });
    const documents: Array<[string[], (value: unknown) => void]> = [
      [["list"], (v) => expect(v).toEqual({ sessions: [] })],
      [
        ["sent"],
        (v) => expect(v).toMatchObject({ sent: [{ id: queued.id, state: "waiting-start", kind: "request" }] }),
      ],
      [["sent", "--from", closed], (v) => expect(v).toEqual({ sent: [] })],
      [["claims"], (v) => expect(v).toMatchObject({ claims: [], offers: [] })],
      [["bus", "inbox"], (v) => expect(v).toEqual({ messages: [], more: 0 })],
      [
        ["prune", "--dry-run"],
        (v) =>
          expect(v).toMatchObject({
            dryRun: true,
            removed: 1,
            folders: [
              { address: closed, shell: false, reason: "unread" },
              { address: queued.from, shell: true, reason: "removed" },
            ],
          }),
      ],
      [["doctor"], (v) => expect(v).toMatchObject({ problems: 0, findings: expect.any(Array) })],
    ];
    for (const [args, check] of documents) {
      const run = await runCli(sandbox, [...args, "--json"]);
      expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: "" });
      check(JSON.parse(run.stdout));
    }
  });

  it("prune names the shell's own mailbox among the folders it would remove", async () => {
    const listed = await runCli(sandbox, ["prune", "--dry-run"]);
    expect(listed.stdout).toMatch(
      /\n[0-9a-f-]{36} +(now|\S+ ago) +would go: this shell's mailbox, made again when it next sends\n/,
    );
  });

  it("sent shows the newest 50 of every slot together; --from a name nobody has exits 6", async () => {
    const base = knownShellAddress(mailRoot(sandbox))!;
    const store = createFsMailStore({ fs: nodeFs, root: mailRoot(sandbox), uid: currentUid() });
    const keep = (from: Address, i: number) => {
      const envelope: Envelope = {
        ...{ id: `copy-${from.slice(-2)}-${i}`, from, to: closed as Address, kind: "message", hops: 0 },
        ...{ in_reply_to: [], status: "", ts: new Date(1_000_000 + i * 1000).toISOString(), body: `copy ${i}` },
      };
      expect(store.keepSent(envelope, 1_000_000 + i * 1000).isOk()).toBe(true);
    };
    const second = slotAddress(base, 2);
    expect(store.openBox(second).isOk()).toBe(true);
    for (let i = 0; i < 55; i++) keep(base, i);
    for (let i = 55; i < 65; i++) keep(second, i);
    const listed = JSON.parse((await runCli(sandbox, ["sent", "--json"])).stdout) as { sent: Array<{ id: string }> };
    expect(listed.sent).toHaveLength(50);
    // The request sent before (now) comes first, then the copies from the newest down.
    expect(listed.sent.slice(1, 12).map((s) => s.id)).toEqual([
      ...Array.from({ length: 10 }, (_, k) => `copy-${second.slice(-2)}-${64 - k}`),
      `copy-${base.slice(-2)}-54`,
    ]);
    const neverSeen = await runCli(sandbox, ["sent", "--from", "0190f7f7-9999-7000-8000-0000000000f7"]);
    expect(neverSeen).toMatchObject({ code: 6, stdout: "" });
    expect(neverSeen.stderr).toMatch(/is not running\. No mailbox folder is named that either\.\n$/);
    const nobody = await runCli(sandbox, ["sent", "--from", "nobody"]);
    expect(nobody).toMatchObject({ code: 6, stdout: "" });
    expect(nobody.stderr).toMatch(
      /^switchboard: No running session is named "nobody".* No mailbox folder is named that either\.\n$/,
    );
  });

  it("looking at a bus no session opened makes nothing on disk (list --repo, claims, bus inbox <member>)", async () => {
    const place = join(sandbox.root, "never-a-bus");
    mkdirSync(place);
    const buses = () =>
      existsSync(join(sandbox.agentDir, "session-bus")) ? readdirSync(join(sandbox.agentDir, "session-bus")) : [];
    const before = buses();
    expect(JSON.parse((await runCli(sandbox, ["list", "--repo", "--json"], { cwd: place })).stdout)).toMatchObject({
      sessions: [],
    });
    expect(JSON.parse((await runCli(sandbox, ["claims", "--json"], { cwd: place })).stdout)).toMatchObject({
      claims: [],
      offers: [],
    });
    expect((await runCli(sandbox, ["bus", "inbox", "bee"], { cwd: place })).code).toBe(6);
    expect(buses()).toEqual(before);
  });

  it("a stdout that cannot be written (a full disk) is one line on stderr and exit 1, never a stack trace", () => {
    const full = spawnSync("sh", ["-c", `${e2ePaths.nodeBin} ${cliBundle(sandbox)} --help > /dev/full`], {
      env: cliEnv(sandbox),
      encoding: "utf8",
    });
    expect({ code: full.status, stderr: full.stderr }).toEqual({
      code: 1,
      stderr: "switchboard: cannot write to stdout (ENOSPC).\n",
    });
  });

  it("a reader that closes stdout early (| head) ends it quietly: exit 0, no stack trace, tail included", async () => {
    const help = await runCli(sandbox, ["--help"], { closeStdout: true });
    expect(help).toMatchObject({ code: 0, stderr: "" });
    const tail = startCli(sandbox, ["tail"], { closeStdout: true });
    await waitUntil(() => (tail.stderr().includes("Ctrl-C stops") ? true : undefined), {
      timeoutMs: 10_000,
      what: "tail following",
      alive: [],
    });
    // tail writes a line for this request, finds nobody reading, and stops.
    expect((await runCli(sandbox, ["send", closed, "for tail"])).code).toBe(0);
    expect(await tail.done).toMatchObject({ code: 0, stderr: "Following mail and the bus; Ctrl-C stops.\n" });
  });

  it("colours only a terminal, and never with NO_COLOR set", () => {
    // `script` gives the program a terminal for stdout.
    const onTerminal = (extra: Record<string, string>) =>
      spawnSync("script", ["-qec", `${e2ePaths.nodeBin} ${cliBundle(sandbox)} sent`, "/dev/null"], {
        env: cliEnv(sandbox, extra),
        encoding: "utf8",
      }).stdout;
    expect(onTerminal({})).toContain("\u001b[1mID");
    expect(onTerminal({ NO_COLOR: "1" })).not.toContain("\u001b[");
    const piped = spawnSync(e2ePaths.nodeBin, [cliBundle(sandbox), "sent"], { env: cliEnv(sandbox), encoding: "utf8" });
    expect(piped.stdout).toMatch(/^ID {8}KIND/);
    expect(piped.stdout).not.toContain("\u001b[");
  });
});
