// `switchboard` following real `pi --mode rpc` sessions on one repository: tail sees the mail between
// two sessions and a bus event as they are sent and taken; list --repo and claims show the bus; bus
// send and bus inbox act as a member for one command; an ask whose target is killed exits 6.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, startCli } from "../cli/cli-process.js";
import { gitRepository, sessionOk, startBusSessions } from "./bus-support.js";
import type { RpcRecord } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";
import { runTimeoutMs, startTimeoutMs, waitUntil } from "./mail-support.js";

const ant = { id: "0190a1a1-8888-7000-8000-0000000000a1", folder: "shop", name: "ant" };
const bee = { id: "0190b2b2-8888-7000-8000-0000000000b2", folder: "shop", name: "bee" };
const cat = { id: "0190c3c3-8888-7000-8000-0000000000c3", folder: "shop", name: "cat" };

interface Followed {
  half: string;
  event: string;
  kind: string;
  fromName: string | null;
  toName: string | null;
  status?: string;
  firstLine: string;
}

const call = (tool: string, args: object) => `CALL_TOOL ${tool} ${JSON.stringify(args)}`;

describe("switchboard following real Pi RPC sessions on one repository", () => {
  let sandbox: Sandbox;
  let shop: string;
  let a: PiSession;
  let b: PiSession;
  let c: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    shop = gitRepository(sandbox, "shop");
    [a, b, c] = (await startBusSessions(sandbox, [ant, bee, cat])) as [PiSession, PiSession, PiSession];
    await sessionOk(a, { action: "join", label: "ant" });
    await sessionOk(b, { action: "join", label: "bee" });
    await sessionOk(b, { action: "claim", paths: ["src/parser.ts"] });
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it("tail --json: an ask between two sessions (sent, claimed), its reply, and a bus event", async () => {
    const tail = startCli(sandbox, ["tail", "--json"]);
    await waitUntil(() => (tail.stderr().includes("Following") ? true : undefined), {
      timeoutMs: runTimeoutMs,
      what: "tail to start following",
      alive: [a, b],
    });
    const sinceB = b.mark();
    await a.prompt(call("session_mail_ask", { to: "bee", message: "what is in the parser" }), runTimeoutMs);
    await b.waitFor((r: RpcRecord) => r.type === "agent_settled", runTimeoutMs, { since: sinceB, what: "bee settles" });
    await sessionOk(a, { action: "send", to: "bee", kind: "event", text: "parser is yours" });
    await waitUntil(() => (tail.stdout().includes("parser is yours") ? true : undefined), {
      timeoutMs: runTimeoutMs,
      what: `tail to print the bus event (stdout: ${tail.stdout()}, stderr: ${tail.stderr()})`,
      alive: [a, b],
    });
    tail.kill("SIGINT");
    const result = await tail.done;
    expect(result.code).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Followed);
    const brief = lines.map((l) => [l.half, l.event, l.kind, l.fromName, l.toName, l.status ?? "", l.firstLine]);
    expect(brief).toContainEqual(["mail", "sent", "ask", "ant", "bee", "", "what is in the parser"]);
    expect(brief).toContainEqual(["mail", "claimed", "ask", "ant", "bee", "", "what is in the parser"]);
    expect(brief).toContainEqual(["bus", "sent", "event", "ant", "bee", "", "parser is yours"]);
    expect(brief.filter((l) => l[2] === "reply")).toEqual(
      expect.arrayContaining([
        [
          "mail",
          expect.stringMatching(/^(sent|claimed)$/),
          "reply",
          "bee",
          "ant",
          "done",
          "echo: what is in the parser",
        ],
      ]),
    );
  });

  it("list --repo adds listening modes and claims; claims lists the holder (text and --json)", async () => {
    const listed = await runCli(sandbox, ["list", "--repo"], { cwd: shop });
    expect(listed.code).toBe(0);
    const rows = listed.stdout.trimEnd().split("\n");
    expect(rows[0]).toMatch(/^NAME\s+ID\s+STATE\s+WAITS ON\s+UNREAD\s+LISTENING\s+CLAIMS\s+CWD$/);
    expect(rows.find((r) => r.startsWith("bee "))).toMatch(
      new RegExp(`^bee\\s+${bee.id}\\s+idle\\s+.*next-turn\\s+src/parser\\.ts\\s`),
    );
    expect(rows.find((r) => r.startsWith("cat "))).toMatch(/not on the bus/);
    const json = JSON.parse((await runCli(sandbox, ["list", "--repo", "--json"], { cwd: shop })).stdout) as {
      sessions: Array<{ id: string; bus: { listening: string; claims: string[] } | null }>;
      root: string;
    };
    expect(json.sessions.find((s) => s.id === bee.id)?.bus).toMatchObject({
      listening: "next-turn",
      claims: ["src/parser.ts"],
    });
    const claims = await runCli(sandbox, ["claims"], { cwd: shop });
    expect(claims.stdout).toMatch(/^PATH\s+HELD BY\s+HOW\nsrc\/parser\.ts\s+bee\s+claimed\n$/);
    const claimsJson = JSON.parse((await runCli(sandbox, ["claims", "--json"], { cwd: shop })).stdout) as {
      claims: Array<{ path: string; holder: { id: string } }>;
    };
    expect(claimsJson.claims).toEqual([
      { path: "src/parser.ts", holder: { id: bee.id, label: "bee", name: "bee" }, observed: false },
    ]);
  });

  it("bus send joins as shell for one command; bus inbox <member> shows what waits there, consuming nothing", async () => {
    const sent = await runCli(sandbox, ["bus", "send", "bee", "from the shell", "--json"], { cwd: shop });
    expect(sent.code).toBe(0);
    const report = JSON.parse(sent.stdout) as { id: string; delivered: Array<{ label: string }> };
    expect(report.delivered.map((d) => d.label)).toEqual(["bee"]);
    const peeked = JSON.parse((await runCli(sandbox, ["bus", "inbox", "bee", "--json"], { cwd: shop })).stdout) as {
      messages: Array<{ fromLabel: string; text: string }>;
    };
    expect(peeked.messages.map((m) => [m.fromLabel, m.text])).toEqual([
      ["ant", "parser is yours"],
      ["shell", "from the shell"],
    ]);
    // Nothing was consumed, and the shell left the bus.
    const again = await runCli(sandbox, ["bus", "inbox", "bee"], { cwd: shop });
    expect(again.stdout).toMatch(
      /^event from ant .*\n {2}parser is yours\nmessage from shell .*\n {2}from the shell\n$/,
    );
    const members = JSON.parse((await runCli(sandbox, ["list", "--repo", "--json"], { cwd: shop })).stdout) as {
      sessions: Array<{ name: string | null }>;
    };
    expect(members.sessions.map((s) => s.name)).toEqual(["ant", "bee", "cat"]);
    const own = await runCli(sandbox, ["bus", "inbox"], { cwd: shop });
    expect(own).toMatchObject({ code: 0, stdout: "No bus mail waits.\n" });
  });

  it("bus send refuses bad input as usage (2) and a member not on the bus as gone (6), sending nothing; bus inbox of nobody exits 6", async () => {
    const refused: Array<[string[], number, RegExp]> = [
      [["*", "hello all"], 2, /^switchboard: to "\*" is for kind event only \(this send is kind message\)\.\n$/],
      [["bee", "x", "--kind", "shout"], 2, /kind/],
      [["bee", "x", "--paths", "../elsewhere"], 2, /outside the repository/],
      [["nobody", "x"], 6, /^switchboard: No active session is called "nobody"\.\n$/],
      // The shell holds no path, so it has none to offer.
      [["bee", "take it", "--kind", "handoff", "--paths", "src/parser.ts"], 2, /it does not hold src\/parser\.ts/],
    ];
    for (const [args, code, stderr] of refused) {
      const run = await runCli(sandbox, ["bus", "send", ...args], { cwd: shop });
      expect({ args, code: run.code, stdout: run.stdout }).toEqual({ args, code, stdout: "" });
      expect(run.stderr).toMatch(stderr);
    }
    const peeked = await runCli(sandbox, ["bus", "inbox", "bee", "--json"], { cwd: shop });
    expect(JSON.parse(peeked.stdout).messages).toHaveLength(2);
    const nobody = await runCli(sandbox, ["bus", "inbox", "nobody"], { cwd: shop });
    expect(nobody).toMatchObject({
      code: 6,
      stdout: "",
      stderr: 'switchboard: No active session is called "nobody".\n',
    });
  });

  it("ask: a target killed while it works exits 6", async () => {
    const since = c.mark();
    const waiting = startCli(sandbox, ["ask", "cat", "SLEEP 30000\nnever answered"]);
    await c.waitFor((r: RpcRecord) => r.type === "agent_start", runTimeoutMs, { since, what: "cat starts working" });
    c.kill("SIGKILL");
    const result = await waiting.done;
    expect(result.code).toBe(6);
    expect(result.stderr).toBe("switchboard: cat stopped running before it answered.\n");
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
    }
  });
});
