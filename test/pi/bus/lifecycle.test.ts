// The ends of a session: session_shutdown stops every timer; a reload keeps the record and the
// claims, and the next session_start (reload) takes them back and keeps listening; new, resume and
// fork leave the bus. Vitest's fake timers count the timers left and drive the 2 s poll.
import { execFileSync } from "node:child_process";
import { readdirSync, statSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { persist } from "../fake-pi.js";
import { type BusSession, ids, textOf, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();
const pollMs = 2_000;
const heartbeatMs = 10_000;

beforeEach(() => {
  vi.useFakeTimers({
    toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "setImmediate", "clearImmediate"],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

/** alice joined as billing-core with wake, holding src/api; bob joined as integrator. */
async function pair(): Promise<{ alice: BusSession; bob: BusSession }> {
  const alice = await sandbox.started(ids.alice);
  const bob = await sandbox.started(ids.bob);
  await alice.tool({ action: "join", label: "billing-core", wake: true });
  await alice.tool({ action: "claim", paths: ["src/api"] });
  await bob.tool({ action: "join", label: "integrator", listen: false });
  return { alice, bob };
}

/** What Pi does at /reload: shutdown (reload), the old runtime goes stale, the factory runs again
 * on the same event bus, and session_start (reload) fires with a new ctx of the same session. */
async function reload(old: BusSession): Promise<BusSession> {
  await old.shutdown("reload");
  old.pi.invalidate();
  old.context.stale = true;
  const fresh = sandbox.session(old.id, { bus: old.pi.bus, mode: old.context.mode });
  await fresh.start("reload");
  return fresh;
}

describe("timers", () => {
  it("a session that never joined runs no timer", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "status" });
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each(["quit", "reload", "new", "resume", "fork"])(
    "session_shutdown (%s) stops the heartbeat and the poll",
    async (reason) => {
      const alice = await sandbox.started(ids.alice);
      await alice.tool({ action: "join", wake: true });
      expect(vi.getTimerCount()).toBe(2);
      await alice.shutdown(reason);
      expect(vi.getTimerCount()).toBe(0);
    },
  );

  it("after shutdown nothing polls: new mail raises nothing in the old session", async () => {
    const { alice, bob } = await pair();
    await alice.shutdown("reload");
    await bob.tool({ action: "send", to: "billing-core", text: "anyone?" });
    vi.advanceTimersByTime(heartbeatMs * 2);
    expect(alice.wakes()).toEqual([]);
  });

  it("the heartbeat rewrites the record every 10 s while joined; not listening, it is the one timer", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "join", wake: true });
    const record = join(sandbox.busDir() ?? "", "sessions", `${ids.alice}.json`);
    const old = new Date(Date.now() - 60_000);
    utimesSync(record, old, old);
    vi.advanceTimersByTime(heartbeatMs);
    expect(Date.now() - statSync(record).mtimeMs).toBeLessThan(30_000);
    expect(vi.getTimerCount()).toBe(2);
    await alice.tool({ action: "join", listen: false });
    expect(vi.getTimerCount()).toBe(1);
  });
});

describe("reload", () => {
  it("keeps the record and the claims; the reloaded session takes them back and keeps listening with wake", async () => {
    const { alice, bob } = await pair();
    const record = sandbox.records().find((r) => r.id === ids.alice);
    const reloaded = await reload(alice);
    expect(sandbox.records().find((r) => r.id === ids.alice)).toEqual(record);
    expect(sandbox.claims()).toHaveLength(1);
    // alice's heartbeat and poll again, and bob's heartbeat.
    expect(vi.getTimerCount()).toBe(3);
    expect(await bob.refusal({ action: "claim", paths: ["src/api/x.ts"] })).toMatch(
      /^Nothing claimed: src\/api\/x\.ts overlaps src\/api, claimed by billing-core\./,
    );
    expect(textOf(await reloaded.tool({ action: "status" }))).toMatch(
      /^This session: billing-core \(\S+\), listening: wake\.\n/,
    );
    await bob.tool({ action: "send", to: "billing-core", text: "after the reload" });
    vi.advanceTimersByTime(pollMs);
    expect(reloaded.wakes()).toHaveLength(1);
    expect(alice.wakes()).toEqual([]);
    // The claim is the reloaded session's own: it releases it.
    expect(textOf(await reloaded.tool({ action: "release", paths: ["src/api"] }))).toBe("Released src/api.");
    expect(sandbox.claims()).toEqual([]);
  });

  it("announces the label again on session-label after a reload, for the extensions whose factories ran anew", async () => {
    const { alice } = await pair();
    const reloaded = await reload(alice);
    expect(reloaded.labels).toEqual([{ id: ids.alice, label: "billing-core" }]);
  });

  it("does not announce again after a reload the mail its transcript already announced", async () => {
    const { alice, bob } = await pair();
    await bob.tool({ action: "send", to: "billing-core", text: "before the reload" });
    vi.advanceTimersByTime(pollMs);
    expect(alice.wakes()).toHaveLength(1);
    // Pi keeps the wake notice in the session: it entered the conversation as a custom message.
    const entries = [...alice.context.entries];
    persist(alice.context, alice.wakes()[0]!);
    await alice.shutdown("reload");
    alice.pi.invalidate();
    alice.context.stale = true;
    const fresh = sandbox.session(alice.id, { bus: alice.pi.bus, mode: alice.context.mode });
    fresh.context.entries.push(...entries, ...alice.context.entries.slice(entries.length));
    await fresh.start("reload");
    vi.advanceTimersByTime(pollMs);
    expect(fresh.wakes()).toEqual([]);
    expect(await fresh.prompt()).toEqual([]);
    // Mail that comes after the reload is announced as ever.
    await bob.tool({ action: "send", to: "billing-core", text: "after the reload" });
    vi.advanceTimersByTime(pollMs);
    expect(fresh.wakes()).toHaveLength(1);
  });

  it("a reloaded session listening at the next turn reports new mail with its next prompt", async () => {
    const { alice, bob } = await pair();
    await alice.tool({ action: "join" });
    const reloaded = await reload(alice);
    await bob.tool({ action: "send", to: "billing-core", text: "next turn please" });
    vi.advanceTimersByTime(pollMs);
    expect(reloaded.wakes()).toEqual([]);
    expect(await reloaded.prompt()).toEqual([
      {
        message: expect.objectContaining({
          customType: "session-bus",
          details: expect.objectContaining({ delivery: "next-turn" }),
        }),
      },
    ]);
  });

  it("leaves normally at a later quit: record and claims removed", async () => {
    const { alice } = await pair();
    const reloaded = await reload(alice);
    await reloaded.shutdown("quit");
    expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
    expect(sandbox.claims()).toEqual([]);
    // bob's heartbeat alone.
    expect(vi.getTimerCount()).toBe(1);
    expect(reloaded.labels).toEqual([
      { id: ids.alice, label: "billing-core" },
      { id: ids.alice, label: undefined },
    ]);
  });
});

describe("leaving the bus", () => {
  it.each(["quit", "new", "resume", "fork"])(
    "session_shutdown (%s) removes the record and the claims",
    async (reason) => {
      const { alice, bob } = await pair();
      await alice.shutdown(reason);
      expect(sandbox.records().map((r) => r.id)).toEqual([ids.bob]);
      expect(sandbox.claims()).toEqual([]);
      expect(textOf(await bob.tool({ action: "claim", paths: ["src/api"] }))).toBe("Claimed src/api.");
      expect(await bob.refusal({ action: "send", to: "billing-core", text: "still there?" })).toBe(
        'No active session is called "billing-core".',
      );
    },
  );

  it("a session that never joined leaves nothing behind and writes nothing at shutdown", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "status" });
    await alice.shutdown("new");
    expect(sandbox.records()).toEqual([]);
  });
});

describe("leaving the bus when the record cannot be removed", () => {
  // "Leaving the session (/new, /resume, /fork, quitting) takes it off the bus with its claims": when
  // it cannot, the person is told. An immutable file is what stops root removing it.
  const isRoot = process.getuid?.() === 0;
  it.skipIf(!isRoot)("tells the person that the record stayed (needs root for chattr +i)", async () => {
    const alice = await sandbox.started(ids.alice);
    await alice.tool({ action: "join", label: "billing-core" });
    const sessions = join(sandbox.busDir() ?? "", "sessions");
    const record = join(sessions, readdirSync(sessions).find((name) => name.startsWith(ids.alice)) ?? "");
    execFileSync("chattr", ["+i", record]);
    try {
      await alice.shutdown("new");
      expect(sandbox.records().map((r) => r.id)).toEqual([ids.alice]);
      expect(alice.context.notices.map((n) => n.text).join("\n")).toMatch(/could not remove this session's record/);
    } finally {
      execFileSync("chattr", ["-i", record]);
    }
  });
});
