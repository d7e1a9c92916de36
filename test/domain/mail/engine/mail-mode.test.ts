// A person decides what reaches a session: `/mailbox hold` keeps mail queued in new/ (replies to its
// own asks still come), `refuse` makes sends to it fail at once, `accept` takes everything again.
import { describe, expect, it } from "vitest";
import { addressOf, createHarness, pollMs } from "./harness.js";

describe("hold", () => {
  it("keeps requests queued in new/, counted in the footer and written in the record, until accept", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    alice.engine.setMailMode("hold");
    expect(h.record("alice")?.mailMode).toBe("hold");
    bob.engine.request("alice", "one", "command");
    bob.engine.send("alice", "two");
    h.hint("alice");
    h.advance(pollMs);
    expect(h.files("alice", "new")).toHaveLength(2);
    expect(alice.host.injected).toEqual([]);
    expect(alice.footer()).toBe("✉ 2 held back");
    expect(bob.engine.sent().map((i) => i.state)).toEqual(["held-back", "held-back"]);
    alice.engine.setMailMode("accept");
    expect(h.record("alice")?.mailMode).toBeUndefined();
    expect(h.files("alice", "new")).toEqual([]);
    expect(alice.host.injected.map((i) => i.mail.details.kind)).toEqual(["request", "message"]);
    expect(alice.footer()).toBe("✉ 2 pending");
  });

  it("still takes the replies to its own asks, and a sender may withdraw what is held", async () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.setMailMode("hold");
    const held = alice.engine.request("bob", "later", "command")._unsafeUnwrap();
    bob.engine.runStarted();
    const pending = bob.engine.ask("alice", "What is the port?", undefined);
    h.hint("alice");
    alice.completeRun("Port 8080.");
    h.hint("bob");
    const outcome = (await pending)._unsafeUnwrap().outcome;
    expect(outcome.kind).toBe("answered");
    expect(h.envelopes("bob", "new").map((e) => e.body)).toEqual(["later"]);
    expect(alice.engine.cancel(held.envelope.id)._unsafeUnwrap().id).toBe(held.envelope.id);
    h.advance(pollMs);
    expect(h.files("bob", "new")).toEqual([]);
    expect(bob.footer()).toBeUndefined();
  });
});

describe("refuse", () => {
  it("makes requests, messages and asks to the session fail at once, naming it, and writes nothing", async () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    alice.engine.setMailMode("refuse");
    const refused = { kind: "refused", to: addressOf.alice, name: "alice" };
    expect(bob.engine.request("alice", "one", "command")._unsafeUnwrapErr()).toEqual(refused);
    expect(bob.engine.send("alice", "two")._unsafeUnwrapErr()).toEqual(refused);
    const asked = await bob.engine.ask("alice", "three?", undefined);
    expect(asked._unsafeUnwrapErr()).toEqual(refused);
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("bob", "sent")).toEqual([]);
    alice.engine.setMailMode("accept");
    expect(bob.engine.send("alice", "now")._unsafeUnwrap().envelope.to).toBe(addressOf.alice);
  });
});
