// The physical prune as status runs it: sparing only a member's own record, and never reaping the
// claims of a record its removal left in place. (Found by a hunt against the specification; each test
// failed before its fix.)
import { afterEach, describe, expect, it, vi } from "vitest";
import { sessionTtlMs } from "../../../../src/domain/bus/limits.js";
import { afterFirstListing, busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

describe("the prune", () => {
  // Known gaps: "a session that beats again after a wall-clock jump or a long suspension keeps its
  // record and its claims".
  it("keeps the claims of a session that beats between being judged expired and its removal", () => {
    const h = createBusHarness();
    const bob = h.start("bob");
    bob.engine.join({ label: "bob" });
    expect(bob.engine.claim(["src/api"]).isOk()).toBe(true);
    // bob's heartbeat lands after alice judged it expired, before the removal.
    const beat = afterFirstListing(`${busRoot}/inbox`, () => {
      const seconds = h.clock.now() / 1000;
      h.vol.utimesSync(`${busRoot}/sessions/${idOf.bob}.json`, seconds, seconds);
    });
    const alice = h.start("alice", { wrapFs: beat.wrapFs });
    alice.engine.join({ label: "alice" });
    h.ageRecord("bob", sessionTtlMs + 60_000);
    alice.engine.status();
    expect(beat.ran()).toBe(true);
    expect(h.record("bob")).toBeDefined();
    expect(h.claimFiles().filter((name) => name.includes(idOf.bob))).toHaveLength(1);
  });

  // "released ... by the next bus call once the owner's process is gone"
  it("run by a resumed process not joined yet, frees the claims its crashed predecessor held", () => {
    const h = createBusHarness();
    const first = h.start("alice");
    first.engine.join({ label: "alice" });
    expect(first.engine.claim(["src/api"]).isOk()).toBe(true);
    h.crash("alice");
    // pi -c in a new process: the same session id, a new pid.
    const resumed = h.start("alice");
    const view = resumed.engine.status()._unsafeUnwrap();
    expect(view.sessions.find((s) => s.id === idOf.alice)?.state).toBe("gone");
    expect(h.claimFiles()).toEqual([]);
  });

  it("never drops the inbox of a session that joins between its read of the records and its listing of inboxes", () => {
    const h = createBusHarness();
    let step: (() => void) | undefined;
    const alice = h.start("alice", {
      wrapFs: (fs) => ({
        ...fs,
        opendirSync(path: string) {
          const dir = fs.opendirSync(path);
          const run = step;
          if (path !== `${busRoot}/sessions` || run === undefined) return dir;
          step = undefined;
          return {
            readSync: () => dir.readSync(),
            closeSync() {
              dir.closeSync();
              run();
            },
          } as typeof dir;
        },
      }),
    });
    alice.engine.join({ label: "alice" });
    const bob = h.start("bob");
    // bob writes its record, then makes its inbox, just after alice's prune read sessions/.
    step = () => expect(bob.engine.join({ label: "bob" }).isOk()).toBe(true);
    alice.engine.status();
    expect(step).toBeUndefined();
    expect(h.vol.existsSync(`${busRoot}/inbox/${idOf.bob}`)).toBe(true);
  });
});
