import { afterEach, describe, expect, it, vi } from "vitest";
import { watchPollMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

function pair(wake: boolean, listen = true) {
  const h = createBusHarness();
  const alice = h.start("alice");
  alice.engine.join({ label: "alice", wake, listen });
  const bob = h.start("bob").engine;
  bob.join({ label: "bob" });
  const say = (text: string, kind?: string) => bob.send({ to: "alice", text, kind })._unsafeUnwrap();
  const ids = () => alice.host.raised.flatMap((notice) => notice.messages.map((m) => m.preview));
  return { h, alice, say, ids };
}

describe("wake", () => {
  it("raises one turn when the poll finds mail and the agent is idle", () => {
    const { h, alice, say, ids } = pair(true);
    say("one");
    say("two");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(1);
    expect(alice.host.raised[0]).toMatchObject({ delivery: "wake", handoffs: 0 });
    expect(ids()).toEqual(["one", "two"]);
  });

  it("raises no turn while its person holds mail back; the mail goes with the next prompt", () => {
    const { h, alice, say } = pair(true);
    let held = true;
    alice.host.wakeHeld = () => held;
    say("kept");
    h.advance(watchPollMs * 3);
    expect(alice.host.raised).toEqual([]);
    held = false;
    h.advance(watchPollMs);
    expect(alice.host.raised).toEqual([]);
    expect(alice.engine.promptStarting()?.messages.map((m) => m.preview)).toEqual(["kept"]);
    say("after");
    h.advance(watchPollMs);
    expect(alice.host.raised.flatMap((n) => n.messages.map((m) => m.preview))).toEqual(["after"]);
  });

  it("polls on the next turn after a watcher hint, once for a burst of hints", () => {
    const { h, alice, say } = pair(true);
    say("now");
    for (let i = 0; i < 3; i++) h.watcher.notify(`${busRoot}/inbox/${idOf.alice}`);
    expect(alice.host.raised).toHaveLength(0);
    h.advance(0);
    expect(alice.host.raised).toHaveLength(1);
  });

  it("finds mail by the poll when every hint is dropped", () => {
    const { h, alice, say } = pair(true);
    h.watcher.dropNext(100);
    say("quiet");
    h.watcher.notify(`${busRoot}/inbox/${idOf.alice}`);
    expect(alice.host.raised).toHaveLength(0);
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(1);
  });

  it("never announces a message twice", () => {
    const { h, alice, say, ids } = pair(true);
    say("one");
    h.advance(watchPollMs);
    alice.engine.runStarted();
    alice.engine.runSettled(false);
    say("two");
    h.advance(5 * watchPollMs);
    expect(ids()).toEqual(["one", "two"]);
    expect(alice.engine.promptStarting()).toBeUndefined();
  });

  it("holds mail found during a run and raises one turn for the burst once it settles", () => {
    const { h, alice, say, ids } = pair(true);
    alice.engine.runStarted();
    say("a");
    h.advance(watchPollMs);
    say("b");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(0);
    alice.engine.runSettled(false);
    expect(alice.host.raised).toHaveLength(1);
    expect(ids()).toEqual(["a", "b"]);
  });

  it("raises no second turn while the raised one has not settled", () => {
    const { h, alice, say } = pair(true);
    say("a");
    h.advance(watchPollMs);
    say("b");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(1);
    alice.engine.runStarted();
    alice.engine.runSettled(false);
    expect(alice.host.raised).toHaveLength(2);
  });

  it("raises nothing after a run the user stopped; that mail goes with the next prompt", () => {
    const { h, alice, say } = pair(true);
    alice.engine.runStarted();
    say("late");
    h.advance(watchPollMs);
    alice.engine.runSettled(true);
    expect(alice.host.raised).toHaveLength(0);
    expect(alice.engine.promptStarting()?.messages.map((m) => m.preview)).toEqual(["late"]);
  });

  it("keeps mail of a stopped run for the next prompt: the next polls raise nothing for it, later mail still wakes", () => {
    const { h, alice, say, ids } = pair(true);
    alice.engine.runStarted();
    say("late");
    h.advance(watchPollMs);
    alice.engine.runSettled(true);
    h.advance(3 * watchPollMs);
    expect(alice.host.raised).toHaveLength(0);
    say("after the stop");
    h.advance(watchPollMs);
    expect(ids()).toEqual(["after the stop"]);
    alice.engine.runStarted();
    alice.engine.runSettled(false);
    expect(alice.engine.promptStarting()?.messages.map((m) => m.preview)).toEqual(["late"]);
  });

  it("does not announce mail the inbox already consumed", () => {
    const { h, alice, say } = pair(true);
    alice.engine.runStarted();
    say("read it");
    h.advance(watchPollMs);
    alice.engine.inbox(undefined);
    alice.engine.runSettled(false);
    expect(alice.host.raised).toHaveLength(0);
  });

  it("headlines handoffs in the notice", () => {
    const { h, alice, say } = pair(true);
    say("take the api", "handoff");
    h.advance(watchPollMs);
    expect(alice.host.raised[0]?.handoffs).toBe(1);
  });
});

describe("next turn and not listening", () => {
  it("reports new mail with the next prompt, once, and raises nothing", () => {
    const { h, alice, say } = pair(false);
    say("hello");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(0);
    const notice = alice.engine.promptStarting();
    expect(notice).toMatchObject({ delivery: "next-turn" });
    expect(notice?.messages.map((m) => m.preview)).toEqual(["hello"]);
    expect(alice.engine.promptStarting()).toBeUndefined();
  });

  it("reports nothing and watches nothing when joined with listen false", () => {
    const { h, alice, say } = pair(true, false);
    say("hello");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(0);
    expect(alice.engine.promptStarting()).toBeUndefined();
    expect(h.watcher.watchedDirs()).not.toContain(`${busRoot}/inbox/${idOf.alice}`);
  });

  it("turns wake on and off with each join, the mode not an arm-time switch", () => {
    const { h, alice, say } = pair(false);
    alice.engine.join({ wake: true });
    say("wake me");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(1);
    alice.engine.join({});
    say("later");
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(1);
  });
});
