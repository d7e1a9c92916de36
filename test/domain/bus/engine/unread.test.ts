// The person's count of unread bus mail: told to the host when it changes, with each poll of a
// listening session (wake or next turn), after a read, and cleared when the session leaves.
import { afterEach, describe, expect, it, vi } from "vitest";
import { watchPollMs } from "../../../../src/domain/bus/limits.js";
import { createBusHarness } from "./harness.js";

afterEach(() => vi.useRealTimers());

describe("the unread count", () => {
  it("follows the inbox of a next-turn session: told on a change only, down to none after a read, cleared at leave", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    const told: ({ files: number; atLeast: boolean } | undefined)[] = [];
    alice.host.unreadChanged = (unread) => void told.push(unread);
    alice.engine.join({ label: "alice" });
    const bob = h.start("bob");
    bob.engine.join({ label: "bob" });
    bob.engine.send({ to: "alice", text: "one" })._unsafeUnwrap();
    bob.engine.send({ to: "alice", text: "two" })._unsafeUnwrap();
    h.advance(watchPollMs);
    h.advance(watchPollMs);
    expect(told).toEqual([{ files: 2, atLeast: false }]);
    alice.engine.inbox(1)._unsafeUnwrap();
    expect(told.at(-1)).toEqual({ files: 1, atLeast: false });
    alice.engine.inbox(1)._unsafeUnwrap();
    expect(told.at(-1)).toBeUndefined();
    bob.engine.send({ to: "alice", text: "three" })._unsafeUnwrap();
    h.advance(watchPollMs);
    expect(told.at(-1)).toEqual({ files: 1, atLeast: false });
    alice.engine.shutdown("quit");
    expect(told.at(-1)).toBeUndefined();
  });
});
