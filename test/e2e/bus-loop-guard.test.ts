// The loop guard between real `pi --mode rpc` processes: two sessions on one repository, both
// listening with wake, whose models answer every bus message they are woken for with another
// (the scripted model's BUS_BOUNCE). Unguarded they would wake each other until someone stops one;
// with hopLimit 3 in session-mail.json the fourth message wakes no one, the person hears why, and
// the held mail comes with the next prompt, saying why.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  busFolder,
  busNotices,
  gitRepository,
  quietFor,
  readInbox,
  runTimeoutMs,
  sessionOk,
  startBusSessions,
  startTimeoutMs,
} from "./bus-support.js";
import { isObject, type RpcRecord } from "./harness/rpc-records.js";
import { createSandbox, type PiSession, type Sandbox, unexpectedStderr } from "./harness/rpc-session.js";

const ping = { id: "0190a0a0-3333-7000-8000-00000000a0a1", folder: "works" };
const pong = { id: "0190b0b0-3333-7000-8000-00000000b0b2", folder: "works" };
const hopLimit = 3;
/** Several watch polls (2 s each): a wake that was going to come has come by then. */
const quietMs = 8_000;

const notifications = (records: readonly RpcRecord[]) =>
  records
    .filter((r) => r.type === "extension_ui_request" && r.method === "notify")
    .map((r) => (isObject(r) && typeof r.message === "string" ? r.message : ""));
const wokenRuns = (records: readonly RpcRecord[]) => busNotices(records).filter((n) => n.delivery === "wake").length;

describe("the loop guard between real Pi RPC sessions: two wake sessions answering every message", () => {
  let sandbox: Sandbox;
  let a: PiSession;
  let b: PiSession;

  beforeAll(async () => {
    sandbox = createSandbox();
    // Read when mail is about to wake a session; written before any session exists.
    writeFileSync(join(sandbox.agentDir, "session-mail.json"), `${JSON.stringify({ hopLimit })}\n`);
    gitRepository(sandbox, "works");
    [a, b] = (await startBusSessions(sandbox, [ping, pong])) as [PiSession, PiSession];
    await sessionOk(a, { action: "join", label: "ping", wake: true });
    await sessionOk(b, { action: "join", label: "pong", wake: true });
  }, startTimeoutMs * 2);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  it(
    "stops at the hop limit: each message carries one hop more, the last wakes no one, and the person is told",
    async () => {
      const [sinceA, sinceB] = [a.mark(), b.mark()];
      // A person's prompt in ping starts it (0 hops): pong wakes (1), ping wakes (2), pong wakes (3),
      // and pong's answer, 3 hops in, reaches the limit at ping.
      await a.prompt("BUS_BOUNCE", runTimeoutMs);
      await quietFor(quietMs);
      const bus = busFolder(sandbox);
      expect(readInbox(bus, pong.id).map((m) => [m.fromLabel, m.hops])).toEqual([
        ["ping", 0],
        ["ping", 2],
      ]);
      expect(readInbox(bus, ping.id).map((m) => [m.fromLabel, m.hops])).toEqual([
        ["pong", 1],
        ["pong", 3],
      ]);
      expect([wokenRuns(a.events.slice(sinceA)), wokenRuns(b.events.slice(sinceB))]).toEqual([1, 2]);
      expect(notifications(a.events.slice(sinceA))).toContain(
        `Bus mail from pong did not wake this session: it came 3 hops into a chain of sessions waking each other, and the limit is ${hopLimit} (hopLimit in session-mail.json). It is shown with your next prompt.`,
      );
      expect(notifications(b.events.slice(sinceB)).filter((text) => text.includes("did not wake"))).toEqual([]);
      // Nothing more comes, however long one waits: the chain is over.
      const settledA = a.events.filter((r) => r.type === "agent_settled").length;
      await quietFor(quietMs / 2);
      expect(a.events.filter((r) => r.type === "agent_settled").length).toBe(settledA);
    },
    runTimeoutMs + quietMs * 3,
  );

  it("shows the held mail with the next prompt, saying why it did not wake the session", async () => {
    const since = a.mark();
    await a.prompt("what came in?", runTimeoutMs);
    const held = busNotices(a.events.slice(since)).filter((n) => n.delivery === "next-turn");
    expect(held).toHaveLength(1);
    expect(held[0]?.content).toContain(
      `Some of this mail came 3 hops into a chain of sessions waking each other (the limit is ${hopLimit}), so it did not wake this session.`,
    );
  });

  it("no session printed anything but JSON records, an extension error, or unexpected stderr", () => {
    for (const pi of [a, b]) {
      expect(pi.stdoutNonJson).toEqual([]);
      expect(unexpectedStderr(pi.stderr)).toEqual([]);
      expect(pi.events.filter((r) => r.type === "extension_error")).toEqual([]);
    }
  });
});
