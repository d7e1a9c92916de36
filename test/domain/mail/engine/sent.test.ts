// Mail you can follow: what `/mailbox sent` shows of each item, read from the files alone, and
// `/mailbox cancel`, which withdraws what is still queued and nothing else.
import { describe, expect, it } from "vitest";
import { type SentState, sentState } from "../../../../src/domain/mail/sent-state.js";
import { addressOf, createHarness } from "./harness.js";

const states = (h: ReturnType<typeof createHarness>, name: "bob") =>
  h
    .session(name)
    .engine.sent()
    .map((item) => [item.kind, item.firstLine, item.state]);

describe("the state of sent mail", () => {
  it("follows a request from queued through delivered, read and held to answered", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.request("alice", "run the tests\nand report", "command");
    expect(states(h, "bob")).toEqual([["request", "run the tests", "queued"]]);
    // Claimed and injected, not yet in alice's conversation: her claim journal names it.
    alice.engine.runStarted();
    h.hint("alice");
    expect(states(h, "bob")).toEqual([["request", "run the tests", "delivered"]]);
    alice.enterAll();
    // Read mail leaves the journal at the next turn of the event loop.
    h.tick();
    expect(states(h, "bob")).toEqual([["request", "run the tests", "read"]]);
    alice.engine.runSettled({ kind: "stopped", text: "partial" });
    expect(states(h, "bob")).toEqual([["request", "run the tests", "held"]]);
    alice.completeRun("all green");
    h.hint("bob");
    expect(states(h, "bob")).toEqual([["request", "run the tests", "answered"]]);
  });

  it("says a message to a session that is not running waits for it to start, and a read message stays read", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send(addressOf.carol, "for later");
    bob.engine.send("alice", "fyi");
    h.hint("alice");
    alice.enterAll();
    h.tick();
    expect(states(h, "bob")).toEqual([
      ["message", "for later", "waiting-start"],
      ["message", "fyi", "read"],
    ]);
    const item = bob.engine.sent()[0];
    expect(item).toMatchObject({ to: addressOf.carol, toName: undefined, sentAtMs: h.clock.now() });
  });

  it("reads the states from the rule the files feed", () => {
    const recipient = { running: true, idle: true };
    const base = { kind: "request" as const, queued: false, journaled: false, answered: false, recipient };
    const cases: Array<[Partial<typeof base>, SentState]> = [
      [{ queued: true }, "queued"],
      [{ queued: true, recipient: { running: false, idle: true } }, "waiting-start"],
      [{ journaled: true }, "delivered"],
      [{}, "held"],
      [{ recipient: { running: true, idle: false } }, "read"],
      [{ recipient: { running: false, idle: true } }, "read"],
      [{ kind: "message" as never }, "read"],
      [{ answered: true, queued: true }, "answered"],
    ];
    for (const [facts, state] of cases) expect(sentState({ ...base, ...facts }), JSON.stringify(facts)).toBe(state);
  });
});

describe("cancel", () => {
  it("withdraws a queued request: gone from the recipient's new/ and from the sender's sent/ and footer", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    const sent = bob.engine.request("alice", "never mind this", "command")._unsafeUnwrap();
    expect(bob.engine.footer().awaiting).toBe(1);
    const withdrawn = bob.engine.cancel(sent.envelope.id.slice(0, 8))._unsafeUnwrap();
    expect(withdrawn).toMatchObject({ id: sent.envelope.id, kind: "request", to: addressOf.alice });
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("bob", "sent")).toEqual([]);
    expect(h.files("bob", "tmp")).toEqual([]);
    expect(bob.engine.footer().awaiting).toBe(0);
    // Nothing reaches alice afterwards.
    h.hint("alice");
    expect(h.session("alice").host.injected).toEqual([]);
  });

  it("refuses mail already claimed, naming its state, and changes nothing", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const sent = bob.engine.send("alice", "too late")._unsafeUnwrap();
    h.hint("alice");
    alice.enterAll();
    h.tick();
    expect(bob.engine.cancel(sent.envelope.id)._unsafeUnwrapErr()).toMatchObject({
      kind: "claimed",
      item: { state: "read" },
    });
    expect(h.files("bob", "sent")).toHaveLength(1);
  });

  it("refuses an ask, an unknown id, a prefix under 8 characters and one that starts two ids", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    void bob.engine.ask("alice", "wait for me", undefined);
    const ask = h.envelopes("bob", "sent")[0]!;
    expect(bob.engine.cancel(ask.id)._unsafeUnwrapErr()).toEqual({ kind: "is-ask", id: ask.id });
    expect(bob.engine.cancel("ffffffff")._unsafeUnwrapErr()).toEqual({ kind: "unknown", id: "ffffffff" });
    expect(bob.engine.cancel(ask.id.slice(0, 7))._unsafeUnwrapErr()).toMatchObject({ kind: "unknown" });
    expect(h.files("alice", "new")).toHaveLength(1);
  });
});
