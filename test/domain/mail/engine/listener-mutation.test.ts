// A message:inbound listener is handed copies: what it edits or replaces on the payload never
// reaches the engine's hop count, its delivery or its claim loop. (Found by a hunt against the
// specification; both tests failed before the fix.)
import { describe, expect, it } from "vitest";
import type { InboundMail } from "../../../../src/domain/mail/engine/index.js";
import { addressOf, createHarness } from "./harness.js";

describe("a message:inbound listener that edits its payload", () => {
  // "Mail that started or steered the turn (or a reply a listener took over) raises the count":
  // the count must come from the mail, not from what a listener leaves on the payload.
  it("cannot lower the hop count by lowering envelope.hops: a 4-hop request still reaches the limit", () => {
    const h = createHarness();
    const alice = h.launch("alice", {
      listener: (mail: InboundMail) => {
        mail.envelope.hops = 0;
      },
    });
    h.launch("carol");
    h.plant({ from: addressOf.bob, to: addressOf.alice, kind: "request", hops: 4 });
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    expect(alice.engine.hops()).toBe(5);
    expect(alice.engine.send("carol", "one more hop").isErr()).toBe(true);
  });

  // "A request a listener handled still arms this session's reply ... and is still answered at the
  // next settle" — and a listener that replaces the payload's envelope must not throw into the claim.
  it("cannot make the claim throw by replacing payload.envelope: the request it handled is still answered", () => {
    const h = createHarness();
    const alice = h.launch("alice", {
      listener: (mail: InboundMail) => {
        mail.handled = true;
        (mail as { envelope: unknown }).envelope = undefined;
      },
    });
    const bob = h.launch("bob");
    const sent = bob.engine.request("alice", "Please run the tests.", "command")._unsafeUnwrap();
    expect(() => h.hint("alice")).not.toThrow();
    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "done", text: "Done by the extension." });
    expect(h.envelopes("bob", "new").map((e) => e.in_reply_to)).toEqual([[sent.envelope.id]]);
  });
});
