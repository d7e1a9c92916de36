import { afterEach, describe, expect, it, vi } from "vitest";
import { heartbeatMs, messageTtlMs, sessionTtlMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

describe("status", () => {
  it("lists every joined session with its listening mode, unread count and claims", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice", wake: true });
    alice.claim(["src/api"]);
    const bob = h.start("bob").engine;
    bob.join({ label: "bob", listen: false });
    bob.send({ to: "alice", text: "hi" });
    const view = bob.status()._unsafeUnwrap();
    expect(view.self).toEqual({ id: idOf.bob, label: "bob", joined: true, listening: "off" });
    expect(view.sessions.map((s) => [s.label, s.state, s.listening, s.unread, s.claims, s.self])).toEqual([
      ["alice", "active", "wake", 1, ["src/api"], false],
      ["bob", "active", "off", 0, [], true],
    ]);
  });

  it("is a read: an unjoined session sees the others and is not listed itself", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "alice" });
    const view = h.start("bob").engine.status()._unsafeUnwrap();
    expect(view.self.joined).toBe(false);
    expect(view.sessions.map((s) => s.label)).toEqual(["alice"]);
    expect(h.record("bob")).toBeUndefined();
  });

  it("shows a dead session as gone without its claims, and frees them on disk at once", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    alice.claim(["src"]);
    h.crash("alice");
    const view = h.start("bob").engine.status()._unsafeUnwrap();
    expect(view.sessions.map((s) => [s.label, s.state, s.claims])).toEqual([["alice", "gone", []]]);
    expect(h.claimFiles()).toEqual([]);
    expect(h.record("alice")).toBeDefined();
  });

  it("prunes a record whose heartbeat aged past the TTL, its claims, and its emptied inbox", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    alice.claim(["src"]);
    h.crash("alice");
    h.advance(sessionTtlMs + heartbeatMs);
    const bob = h.start("bob").engine;
    expect(bob.snapshot()._unsafeUnwrap().sessions).toEqual([]);
    expect(h.record("alice")).toBeDefined();
    bob.status();
    expect(h.record("alice")).toBeUndefined();
    expect(h.vol.existsSync(`${busRoot}/inbox/${idOf.alice}`)).toBe(false);
  });

  it("keeps a session whose heartbeat runs, however long it lives", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "alice" });
    h.advance(3 * sessionTtlMs);
    expect(
      h
        .start("bob")
        .engine.status()
        ._unsafeUnwrap()
        .sessions.map((s) => s.state),
    ).toEqual(["active"]);
  });

  it("expires unread mail after the message TTL", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    h.start("bob").engine.send({ to: "alice", text: "old" });
    h.advance(messageTtlMs + 1);
    alice.status();
    expect(h.inboxFiles("alice")).toEqual([]);
  });
});
