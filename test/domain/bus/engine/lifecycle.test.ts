import { afterEach, describe, expect, it, vi } from "vitest";
import { heartbeatMs, sessionTtlMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

const mtimeOf = (h: ReturnType<typeof createBusHarness>, id: string) =>
  Number(h.vol.statSync(`${busRoot}/sessions/${id}.json`).mtimeMs);

describe("heartbeat", () => {
  it("rewrites the record every heartbeat, so its mtime follows the clock", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({});
    const joined = mtimeOf(h, idOf.alice);
    h.advance(heartbeatMs);
    expect(mtimeOf(h, idOf.alice)).toBe(joined + heartbeatMs);
  });

  it("joins again under a new token when its record was pruned while it was silent", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ label: "alice" });
    const token = h.record("alice")?.joinToken;
    h.vol.unlinkSync(`${busRoot}/sessions/${idOf.alice}.json`);
    h.advance(heartbeatMs);
    expect(alice.host.warnings).toEqual([{ kind: "record-lost", label: "alice" }]);
    expect(h.record("alice")?.joinToken).not.toBe(token);
  });
});

describe("a heartbeat overdue at a claim", () => {
  it("beats before claiming, so a peer's prune does not take what the claim just reported held", () => {
    // The wall clock jumped past the TTL (a laptop waking): every heartbeat reads expired until
    // the next beat fires. Found by the bus simulator (seeds 155, 182, 189 before the fix).
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ label: "alice" });
    const bob = h.start("bob");
    bob.engine.join({ label: "bob" });
    h.clock.jump(sessionTtlMs + heartbeatMs);
    vi.setSystemTime(h.clock.now());
    expect(alice.engine.claim(["src/api"]).isOk()).toBe(true);
    const seen = bob.engine.status()._unsafeUnwrap();
    expect(seen.sessions.find((s) => s.id === idOf.alice)?.claims).toEqual(["src/api"]);
    expect(h.claimFiles()).toHaveLength(1);
  });
});

describe("leaving", () => {
  it("removes its record and claims at shutdown and stops every timer", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ wake: true });
    alice.engine.claim(["src"]);
    h.shutdown("alice", "resume");
    expect(h.record("alice")).toBeUndefined();
    expect(h.claimFiles()).toEqual([]);
    expect(alice.liveTimers()).toBe(0);
  });

  it("keeps record and claims across a reload, and takes them back in the same process", () => {
    const h = createBusHarness();
    const first = h.start("alice");
    first.engine.join({ label: "alice", wake: true });
    first.engine.claim(["src"]);
    h.shutdown("alice", "reload");
    expect(first.liveTimers()).toBe(0);
    const again = h.start("alice", { pid: first.pid, reason: "reload" });
    expect(h.claimFiles()).toHaveLength(1);
    expect(again.engine.status()._unsafeUnwrap().self).toMatchObject({
      joined: true,
      label: "alice",
      listening: "wake",
    });
    expect(again.engine.claim(["src"])._unsafeUnwrap().alreadyHeld).toEqual(["src"]);
    expect(again.liveTimers()).toBeGreaterThan(0);
  });

  it("does not take back a record another process wrote", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({});
    const other = h.start("bob", { idOf: "alice", reason: "reload" });
    expect(other.engine.snapshot()._unsafeUnwrap().self.joined).toBe(false);
  });
});

describe("one session id in two processes", () => {
  it("gives the record and the claims to the last joiner; the older one is told it is off the bus", () => {
    const h = createBusHarness();
    const older = h.start("alice");
    older.engine.join({ label: "alice" });
    older.engine.claim(["src"]);
    const newer = h.start("bob", { idOf: "alice" });
    newer.engine.join({});
    expect(h.record("alice")?.pid).toBe(newer.pid);
    expect(newer.engine.claim(["src"])._unsafeUnwrap().alreadyHeld).toEqual(["src"]);
    h.advance(heartbeatMs);
    expect(older.host.warnings).toEqual([{ kind: "displaced", pid: newer.pid }]);
    h.shutdown("alice");
    expect(h.record("alice")?.pid).toBe(newer.pid);
    expect(h.claimFiles()).toHaveLength(1);
  });
});

describe("a session that died", () => {
  it("reads gone at once to others, and its row ages out with its heartbeat", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({});
    h.crash("alice");
    const bob = h.start("bob").engine;
    expect(
      bob
        .status()
        ._unsafeUnwrap()
        .sessions.map((s) => s.state),
    ).toEqual(["gone"]);
    h.advance(sessionTtlMs + heartbeatMs);
    expect(
      bob
        .status()
        ._unsafeUnwrap()
        .sessions.map((s) => s.id),
    ).toEqual([]);
  });
});
