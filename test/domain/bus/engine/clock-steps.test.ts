// Expiry rests on time a reader saw pass: a wall clock step (suspend and resume, an NTP correction)
// frees no live peer's claims and deletes no mail; a hung owner still expires after the session TTL
// once a reader has watched it stay silent that long. And a heartbeat never writes back a record a
// prune removed. (Each test failed before its fix.)
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { heartbeatMs, sessionTtlMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

const hourMs = 60 * 60_000;

function step(h: ReturnType<typeof createBusHarness>, ms: number): void {
  h.clock.jump(ms);
  vi.setSystemTime(h.clock.now());
}

describe("a forward step of the wall clock", () => {
  for (const stepMs of [sessionTtlMs + 60_000, 25 * hourMs]) {
    it(`of ${stepMs / 60_000} minutes frees no live peer's claims on the first status or claim after it`, () => {
      const h = createBusHarness();
      const alice = h.start("alice").engine;
      alice.join({ label: "alice" });
      expect(alice.claim(["src/api"]).isOk()).toBe(true);
      const bob = h.start("bob").engine;
      bob.join({ label: "bob" });
      bob.status();
      step(h, stepMs);
      const view = bob.status()._unsafeUnwrap();
      expect(view.sessions.find((s) => s.id === idOf.alice)?.claims).toEqual(["src/api"]);
      const carol = h.start("carol").engine;
      const taken = carol.claim(["src/api/routes.ts"]);
      expect(taken.isErr() && taken.error.kind).toBe("claim-conflict");
      expect(h.claimFiles().filter((name) => name.includes(idOf.alice))).not.toEqual([]);
    });
  }

  it("of 25 hours deletes no unread mail, for a reader that lived through it or one started after it", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    const bob = h.start("bob").engine;
    for (const text of ["one", "two", "three", "four", "five"]) {
      bob.send({ to: "alice", text });
      h.advance(1_000);
    }
    bob.status();
    step(h, 25 * hourMs);
    bob.status();
    expect(h.inboxFiles("alice")).toHaveLength(5);
    h.start("carol").engine.status();
    expect(h.inboxFiles("alice")).toHaveLength(5);
    const read = alice.inbox(20)._unsafeUnwrap();
    expect(read.rows.map((row) => row.message.text)).toEqual(["one", "two", "three", "four", "five"]);
  });
});

describe("a hung owner", () => {
  it("keeps its claims until a reader has watched its heartbeat stand still for the session TTL", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    expect(alice.claim(["src/api"]).isOk()).toBe(true);
    h.hang("alice");
    const bob = h.start("bob").engine;
    bob.join({ label: "bob" });
    bob.status();
    h.advance(sessionTtlMs - heartbeatMs);
    expect(bob.claim(["src/api"]).isErr()).toBe(true);
    h.advance(2 * heartbeatMs);
    const view = bob.status()._unsafeUnwrap();
    expect(view.sessions.map((s) => s.label)).toEqual(["bob"]);
    expect(bob.claim(["src/api"]).isOk()).toBe(true);
  });
});

describe("a heartbeat racing a prune", () => {
  it("never writes back a record whose claims the prune reaped: the session joins again and is told", () => {
    const h = createBusHarness();
    let bobPrunes: (() => void) | undefined;
    // Right before alice's heartbeat reaches the disk, bob's whole prune runs.
    const racing = (fs: FsLike): FsLike => {
      const beforeWrite = () => {
        const prune = bobPrunes;
        bobPrunes = undefined;
        prune?.();
      };
      const record = `${busRoot}/sessions/${idOf.alice}.json`;
      return {
        ...fs,
        renameSync(from: string, to: string) {
          if (to === record) beforeWrite();
          fs.renameSync(from, to);
        },
        futimesSync(fd: number, atime: Date, mtime: Date) {
          beforeWrite();
          fs.futimesSync(fd, atime, mtime);
        },
      };
    };
    const alice = h.start("alice", { wrapFs: racing });
    alice.engine.join({ label: "alice" });
    expect(alice.engine.claim(["src/api"]).isOk()).toBe(true);
    const token = h.record("alice")?.joinToken;
    h.hang("alice");
    const bob = h.start("bob").engine;
    bob.join({ label: "bob" });
    bob.status();
    h.advance(sessionTtlMs + heartbeatMs);
    bobPrunes = () => bob.status();
    h.resume("alice");
    expect(bobPrunes).toBeUndefined();
    const after = h.record("alice");
    const held = h.claimFiles().filter((name) => name.includes(idOf.alice));
    // Whatever record alice has, its token's claims are the ones on disk: none lost silently.
    expect(after?.joinToken).not.toBe(token);
    expect(held).toEqual([]);
    expect(alice.host.warnings).toContainEqual({ kind: "record-lost", label: "alice" });
  });
});
