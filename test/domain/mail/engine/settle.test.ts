import { describe, expect, it } from "vitest";
import { droppedBody, tookOverNote } from "../../../../src/domain/mail/settle-rules.js";
import { addressOf, createHarness } from "./harness.js";

/** alice running, with bob and carol running beside her. */
function trio() {
  const h = createHarness();
  const alice = h.launch("alice");
  const bob = h.launch("bob");
  const carol = h.launch("carol");
  return { h, alice, bob, carol };
}

describe("read tracking", () => {
  // "Mail counts as read when it enters the conversation (message_end)."
  it("counts injected mail as pending until messageEntered, then as read", () => {
    const { h, alice, bob } = trio();
    const sent = bob.engine.request("alice", "Please run the tests.", "command")._unsafeUnwrap();
    h.hint("alice");
    expect(alice.engine.footer()).toEqual({ pending: 1, read: 0, awaiting: 0 });

    alice.engine.messageEntered(sent.envelope.id);
    expect(alice.engine.footer()).toEqual({ pending: 0, read: 1, awaiting: 0 });
  });

  it("ignores messageEntered for an id that was never injected", () => {
    const { alice } = trio();
    alice.engine.messageEntered("never-injected");
    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "done", text: "Nothing to answer." });
    expect(alice.engine.footer()).toEqual({ pending: 0, read: 0, awaiting: 0 });
  });
});

describe("settle when the run completes (done)", () => {
  // "its last answer goes back to each sender as one reply listing the requests it answers. Each of the
  // sender's asks not already answered with session_mail_reply gets a separate reply." Messages are never answered.
  it("writes one reply per sender listing its requests, one per ask, and none for messages", () => {
    const { h, alice, bob, carol } = trio();
    const r1 = bob.engine.request("alice", "one", "command")._unsafeUnwrap().envelope.id;
    const r2 = bob.engine.request("alice", "two", "command")._unsafeUnwrap().envelope.id;
    bob.engine.send("alice", "just so you know");
    void bob.engine.ask("alice", "quick question", undefined);
    const a1 = h.envelopes("alice", "new").find((e) => e.kind === "ask")?.id ?? "";
    const r3 = carol.engine.request("alice", "three", "command")._unsafeUnwrap().envelope.id;
    h.hint("alice");
    alice.completeRun("The answer.");

    const toBob = h.envelopes("bob", "new");
    expect(toBob.map((e) => e.in_reply_to).sort()).toEqual([[a1], [r1, r2]].sort());
    expect(toBob.every((e) => e.kind === "reply" && e.status === "done" && e.body === "The answer.")).toBe(true);
    expect(h.envelopes("carol", "new")).toMatchObject([{ kind: "reply", status: "done", in_reply_to: [r3] }]);
    expect(alice.engine.footer()).toEqual({ pending: 0, read: 0, awaiting: 0 });
  });

  it("answers each request once: a later run writes no second reply", () => {
    const { h, alice, bob } = trio();
    bob.engine.request("alice", "one", "command");
    h.hint("alice");
    alice.completeRun("The answer.");
    alice.completeRun("Something else.");
    expect(h.envelopes("bob", "new")).toHaveLength(1);
  });

  // "Answers the ask at once ... The answer at settle then leaves that ask out, while the sender's other
  // requests and asks are still answered."
  it("leaves out at settle an ask already answered with reply()", () => {
    const { h, alice, bob, carol } = trio();
    void carol.engine.ask("alice", "What is the port?", undefined);
    const askId = h.envelopes("alice", "new")[0]?.id ?? "";
    const request = carol.engine.request("alice", "And run the tests.", "command")._unsafeUnwrap();
    bob.engine.request("alice", "Bob's job.", "command");
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    expect(alice.engine.reply(askId, "Port 8080.").isOk()).toBe(true);
    expect(h.envelopes("carol", "new")).toMatchObject([{ in_reply_to: [askId], status: "done", body: "Port 8080." }]);
    alice.engine.runSettled({ kind: "done", text: "Tests pass." });

    const toCarol = h.envelopes("carol", "new");
    expect(toCarol.map((e) => e.in_reply_to).sort()).toEqual([[askId], [request.envelope.id]].sort());
    expect(h.envelopes("bob", "new")).toHaveLength(1);
  });
});

describe("settle when the user stopped the run", () => {
  // "Asks are never held, because their sender is blocked waiting: a stopped run answers them stopped at once."
  // "A request is never answered stopped. ... the next run that completes answers them done and says the user took over"
  it("answers an ask stopped at once, holds the request, and the next done run answers it with the took-over note", () => {
    const { h, alice, bob, carol } = trio();
    const request = bob.engine.request("alice", "Refactor the parser.", "command")._unsafeUnwrap();
    void carol.engine.ask("alice", "Are you free?", undefined);
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    alice.engine.runSettled({ kind: "stopped", text: "Half an answer" });

    expect(h.envelopes("carol", "new")).toMatchObject([{ kind: "reply", status: "stopped" }]);
    expect(h.envelopes("carol", "new")[0]?.body).toContain("Half an answer");
    expect(h.envelopes("bob", "new")).toEqual([]);
    expect(alice.engine.footer()).toEqual({ pending: 0, read: 1, awaiting: 0 });

    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "done", text: "The parser is refactored." });
    const toBob = h.envelopes("bob", "new");
    expect(toBob).toHaveLength(1);
    expect(toBob[0]).toMatchObject({ status: "done", in_reply_to: [request.envelope.id] });
    expect(toBob[0]?.body).toBe(`${tookOverNote}\n\nThe parser is refactored.`);
    expect(toBob[0]?.body).not.toContain("Half an answer");
  });

  // "It stays owed through further stopped runs and through runs that end on an error"
  it("keeps a held request owed through a further stopped run and a failed run", () => {
    const { h, alice, bob } = trio();
    bob.engine.request("alice", "Refactor the parser.", "command");
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    alice.engine.runSettled({ kind: "stopped", text: "" });
    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "stopped", text: "" });
    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "failed", error: "529 overloaded", text: "" });
    expect(h.envelopes("bob", "new")).toEqual([]);

    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "done", text: "Finally." });
    expect(h.envelopes("bob", "new")).toMatchObject([{ status: "done", body: `${tookOverNote}\n\nFinally.` }]);
  });

  // "A request the session was stopped before reading gets a failed reply instead."
  it("answers failed a request injected but never entered when the run is stopped", () => {
    const { h, alice, bob } = trio();
    const request = bob.engine.request("alice", "Refactor the parser.", "command")._unsafeUnwrap();
    h.hint("alice");
    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "stopped", text: "" });

    expect(h.envelopes("bob", "new")).toMatchObject([
      { status: "failed", in_reply_to: [request.envelope.id], body: droppedBody("request") },
    ]);
    expect(h.envelopes("bob", "new")[0]?.body).toContain("stopped before it read");
    // Entered late (the host's queue still had it): it is not answered a second time.
    alice.enterAll();
    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "done", text: "Late answer." });
    expect(h.envelopes("bob", "new")).toHaveLength(1);
  });
});

describe("settle when the run failed", () => {
  // "failed when the run ended on an error (with the error and the partial text)"
  it("answers the run's requests failed with the error text and the partial text", () => {
    const { h, alice, bob } = trio();
    bob.engine.request("alice", "Refactor the parser.", "command");
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    alice.engine.runSettled({ kind: "failed", error: "529 overloaded", text: "Got halfway" });

    const toBob = h.envelopes("bob", "new");
    expect(toBob).toMatchObject([{ kind: "reply", status: "failed" }]);
    expect(toBob[0]?.body).toContain("529 overloaded");
    expect(toBob[0]?.body).toContain("Got halfway");
  });
});

describe("reply() refusals: nothing is written", () => {
  // "Refused, sending nothing, for an ask already answered (by this tool or at settle), for a request
  // (answered at settle), a message or a reply, for an id that never reached this session, and for an empty text."
  // "Envelope ids are data": an ask of another implementation's whose id the label cuts or blanks
  // is answered by the id as the label showed it, the one the model can give back.
  it("answers an ask by its id as the label showed it, when the label had to cut it or blank its controls", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("carol");
    const long = `ask-${"x".repeat(600)}`;
    const controlled = "ask\u0007bell";
    // Written raw, as another implementation would: this package's encoder keeps its own ids short.
    for (const [i, id] of [long, controlled].entries()) {
      const ask = { id, from: addressOf.carol, to: addressOf.alice, kind: "ask", hops: 0, in_reply_to: [] };
      const text = JSON.stringify({ ...ask, status: "", ts: "2023-11-14T22:13:20.000Z", body: `question ${i}` });
      h.vol.writeFileSync(`${h.newDir("alice")}/00000000000000${i}-ask.json`, text);
    }
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    const shown = alice.host.injected.map((i) => /ask "([^"]*)"/.exec(i.mail.content)?.[1] ?? "");
    expect(shown[0]).toMatch(/^ask-x+…$/);
    expect(shown[0]?.length).toBeLessThan(long.length);
    expect(shown[1]).toBe("ask bell");
    for (const id of shown) expect(alice.engine.reply(id, `answer to ${id.slice(0, 8)}`).isOk()).toBe(true);
    expect(h.envelopes("carol", "new").map((e) => e.in_reply_to)).toEqual([[long], [controlled]]);
  });

  it("refuses an unknown id, a request, a message, a reply, an answered ask and an empty text", () => {
    const { h, alice, bob, carol } = trio();
    const request = bob.engine.request("alice", "job", "command")._unsafeUnwrap().envelope.id;
    const message = bob.engine.send("alice", "note")._unsafeUnwrap().envelope.id;
    void carol.engine.ask("alice", "question", undefined);
    const ask = h.envelopes("alice", "new").find((e) => e.kind === "ask")?.id ?? "";
    alice.engine.request("bob", "alice's own job", "command");
    h.hint("alice");
    h.hint("bob");
    bob.completeRun("bob's answer");
    h.hint("alice");
    const reply = alice.host.injected.find((i) => i.mail.details.kind === "reply")?.mail.details.mailId ?? "";
    alice.enterAll();
    const toBob = h.files("bob", "new");
    const toCarol = h.files("carol", "new");

    expect(alice.engine.reply("never-seen", "x")._unsafeUnwrapErr()).toEqual({ kind: "unknown-ask", id: "never-seen" });
    expect(alice.engine.reply(request, "x")._unsafeUnwrapErr()).toMatchObject({ kind: "not-an-ask", is: "request" });
    // Refused as not an ask; the engine keeps no record of received messages, so `is` cannot say "message".
    expect(alice.engine.reply(message, "x")._unsafeUnwrapErr()).toMatchObject({ kind: "not-an-ask", id: message });
    expect(alice.engine.reply(reply, "x")._unsafeUnwrapErr()).toMatchObject({ kind: "not-an-ask", is: "reply" });
    expect(alice.engine.reply(ask, "   ")._unsafeUnwrapErr()).toEqual({ kind: "empty-body" });
    expect(h.files("bob", "new")).toEqual(toBob);
    expect(h.files("carol", "new")).toEqual(toCarol);

    expect(alice.engine.reply(ask, "The answer.").isOk()).toBe(true);
    expect(alice.engine.reply(ask, "Again.")._unsafeUnwrapErr()).toEqual({ kind: "already-answered", id: ask });
    expect(h.files("carol", "new")).toHaveLength(toCarol.length + 1);
  });

  it("refuses an ask the settle already answered", () => {
    const { h, alice, carol } = trio();
    void carol.engine.ask("alice", "question", undefined);
    const ask = h.envelopes("alice", "new")[0]?.id ?? "";
    h.hint("alice");
    alice.completeRun("Settled answer.");
    expect(h.files("carol", "new")).toHaveLength(1);

    expect(alice.engine.reply(ask, "Late.")._unsafeUnwrapErr()).toEqual({ kind: "already-answered", id: ask });
    expect(h.files("carol", "new")).toHaveLength(1);
  });
});
