import { describe, expect, it } from "vitest";
import { askWaitMs } from "../../../../src/domain/mail/limits.js";
import { describeSendError } from "../../../../src/pi/mail/texts.js";
import { addressOf, createHarness, mailRoot, peek, pollMs } from "./harness.js";

/** bob asks alice during a run, alice answers, bob's ask ends answered: the answer's id. */
async function answeredDuringRun() {
  const h = createHarness();
  const alice = h.launch("alice");
  const bob = h.launch("bob");
  bob.engine.runStarted();
  const pending = bob.engine.ask("alice", "What is the port?", undefined);
  h.hint("alice");
  alice.completeRun("Port 8080.");
  h.hint("bob");
  const outcome = (await pending)._unsafeUnwrap().outcome;
  if (outcome.kind !== "answered") throw new Error(`the ask ended ${outcome.kind}`);
  return { h, bob, answerId: outcome.envelope.id };
}

/** bob asks alice; both running. */
function asking() {
  const h = createHarness();
  const alice = h.launch("alice");
  const bob = h.launch("bob");
  const seenByBob: string[] = [];
  bob.engine.onInbound((mail) => seenByBob.push(mail.envelope.id));
  const controller = new AbortController();
  const pending = bob.engine.ask("alice", "What is the port?", controller.signal);
  return { h, alice, bob, seenByBob, controller, pending };
}

describe("ask: how the wait ends", () => {
  // "The answer to an ask its sender is still waiting on becomes that sender's session_mail_ask result."
  // "A reply to this session's waiting ask goes to the waiting tool call as its result: it is neither injected
  // nor emitted on message:inbound."
  it("names the target in the asker's running record before the ask is published", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    const waitingOnAtPublish: unknown[] = [];
    const rename = h.vol.renameSync.bind(h.vol);
    h.vol.renameSync = ((from: string, to: string) => {
      if (String(to).startsWith(`${h.newDir("alice")}/`)) waitingOnAtPublish.push(h.record("bob")?.waitingOn);
      rename(from, to);
    }) as typeof h.vol.renameSync;
    void bob.engine.ask("alice", "What is the port?", undefined);

    expect(waitingOnAtPublish).toEqual([addressOf.alice]);
    expect(h.record("bob")?.waitingOn).toBe(addressOf.alice);
  });

  it("resolves with the answer when the target's reply arrives, neither injecting nor emitting it", async () => {
    const { h, alice, bob, seenByBob, pending } = asking();
    h.hint("alice");
    alice.completeRun("Port 8080.");
    expect(await peek(pending)).toBe("pending");
    h.hint("bob");

    const { sent, outcome } = (await pending)._unsafeUnwrap();
    expect(sent.envelope).toMatchObject({ kind: "ask", to: addressOf.alice, body: "What is the port?" });
    expect(outcome.kind).toBe("answered");
    if (outcome.kind !== "answered") return;
    expect(outcome.envelope).toMatchObject({ status: "done", body: "Port 8080.", in_reply_to: [sent.envelope.id] });
    expect(bob.host.injected).toEqual([]);
    expect(seenByBob).toEqual([]);
    expect(bob.engine.footer()).toEqual({ pending: 0, read: 0, awaiting: 0 });
  });

  // "after 10 minutes (\"no answer yet\")"
  it("ends with timeout after exactly 10 minutes of virtual time", async () => {
    const { h, pending } = asking();
    h.advance(askWaitMs - 1);
    expect(await peek(pending)).toBe("pending");

    h.advance(1);
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "timeout" });
  });

  // "when the target's running record disappears (\"stopped running\")"
  it("ends with target-gone on the next poll after the target shuts down", async () => {
    const { h, pending } = asking();
    h.shutdown("alice");
    expect(await peek(pending)).toBe("pending");

    h.advance(pollMs);
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "target-gone" });
  });

  // "claims it into cur/ and injects it once", across a crash: the answer handed to a waiting ask.
  it("keeps an answer handed to the ask journaled until its result is recorded: after a crash before that, the restart shows it as mail", async () => {
    const { h, answerId } = await answeredDuringRun();
    h.crash("bob");

    const again = h.launch("bob");
    expect(again.host.injected.map((i) => [i.mail.details.mailId, i.options.triggerTurn])).toEqual([[answerId, true]]);
    expect(again.host.injected[0]?.mail.content).toContain("Port 8080.");
  });

  it("does not show an answer again whose ask result the transcript holds", async () => {
    const { h, bob, answerId } = await answeredDuringRun();
    // The tool result entered the conversation; the journal drops it lazily, so a crash finds it there.
    bob.engine.messageEntered(answerId);
    h.crash("bob");

    const again = h.start("bob");
    again.host.shown.add(answerId);
    h.tick();
    expect(again.host.injected).toEqual([]);
  });

  // "A record whose process no longer exists counts as not running"
  it("ends with target-gone when the target's process crashed and left its record", async () => {
    const { h, pending } = asking();
    h.crash("alice");
    expect(h.record("alice")).toBeDefined();

    h.advance(pollMs);
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "target-gone" });
    expect(h.record("alice")).toBeUndefined();
  });

  // "or when the user stops the run"
  it("ends with aborted when the AbortSignal fires", async () => {
    const { controller, pending } = asking();
    expect(await peek(pending)).toBe("pending");
    controller.abort();
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "aborted" });
  });

  it("ends with aborted at once when the signal had already fired", async () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    const controller = new AbortController();
    controller.abort();
    const result = await bob.engine.ask("alice", "still there?", controller.signal);
    expect(result._unsafeUnwrap().outcome).toEqual({ kind: "aborted" });
    expect(h.record("bob")?.waitingOn).toBe("");
  });

  // "waitingOn is set while it waits and cleared in every case"
  it("sets waitingOn in the running record while it waits and clears it after", async () => {
    const { h, bob, controller, pending } = asking();
    expect(h.record("bob")?.waitingOn).toBe(addressOf.alice);
    expect(bob.engine.list().find((s) => s.self)?.waitingOn).toBe(addressOf.alice);
    controller.abort();
    await pending;
    expect(h.record("bob")?.waitingOn).toBe("");
  });

  it("leaves no timer behind once the answer arrived", async () => {
    const { h, alice, bob, pending } = asking();
    const timersWhileWaiting = bob.liveTimers();
    h.hint("alice");
    alice.completeRun("Port 8080.");
    h.hint("bob");
    await pending;
    expect(bob.liveTimers()).toBe(timersWhileWaiting - 1);
  });
});

describe("ask: refusals write nothing", () => {
  // "Refused at once, writing nothing, when another ask of this session is waiting"
  it("refuses a second ask while one waits", async () => {
    const { h, bob } = asking();
    h.launch("carol");
    const second = await bob.engine.ask("carol", "and you?", undefined);
    expect(second._unsafeUnwrapErr()).toEqual({ kind: "ask-waiting", on: addressOf.alice });
    expect(h.files("carol", "new")).toEqual([]);
    expect(h.files("alice", "new")).toHaveLength(1);
  });

  // "when the target is not running"
  it("refuses to ask a session that is not running", async () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const result = await bob.engine.ask(addressOf.alice, "anyone?", undefined);
    expect(result._unsafeUnwrapErr()).toEqual({ kind: "not-running", to: addressOf.alice });
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.record("bob")?.waitingOn).toBe("");
  });

  // "when the target is waiting on this session"
  it("refuses to ask a session that waits on this one (deadlock)", async () => {
    const { h, alice } = asking();
    const result = await alice.engine.ask("bob", "what do you want?", undefined);
    expect(result._unsafeUnwrapErr()).toEqual({ kind: "deadlock", to: addressOf.bob });
    expect(h.files("bob", "new")).toEqual([]);
    expect(h.record("alice")?.waitingOn).toBe("");
  });

  it("refuses an ask that would close a longer wait cycle, naming the sessions between", async () => {
    const h = createHarness();
    const [alice, bob, carol] = [h.launch("alice"), h.launch("bob"), h.launch("carol")];
    void bob.engine.ask("carol", "bob waits on carol", undefined);
    void carol.engine.ask("alice", "carol waits on alice", undefined);
    const closing = await alice.engine.ask("bob", "alice would wait on bob", undefined);
    expect(closing._unsafeUnwrapErr()).toEqual({ kind: "deadlock", to: addressOf.bob, via: [addressOf.carol] });
    expect(describeSendError(closing._unsafeUnwrapErr())).toContain(
      `Refused: ${addressOf.bob} waits on ${addressOf.carol}, which waits on an answer from this session: asking ${addressOf.bob} would close the loop`,
    );
    expect(h.files("bob", "new")).toEqual([]);
    expect(h.record("alice")?.waitingOn).toBe("");
  });

  it("lets an ask through a chain that does not come back, and past a cycle of others", async () => {
    const h = createHarness();
    const [alice, bob, carol, dave] = [h.launch("alice"), h.launch("bob"), h.launch("carol"), h.launch("dave")];
    void bob.engine.ask("carol", "bob waits on carol", undefined);
    void carol.engine.ask("dave", "carol waits on dave", undefined);
    const through = peek(alice.engine.ask("bob", "a chain that ends at dave", undefined));
    expect(await through).toBe("pending");
    // dave's record planted waiting on bob closes bob → carol → dave → bob: not through erin.
    const erin = h.launch("erin");
    const daves = `${mailRoot}/running/${addressOf.dave}.json`;
    const record = JSON.parse(String(h.vol.readFileSync(daves, "utf8")));
    h.vol.writeFileSync(daves, JSON.stringify({ ...record, waitingOn: addressOf.bob }));
    expect(await peek(erin.engine.ask("carol", "into a cycle of others", undefined))).toBe("pending");
    expect(h.record("erin")?.waitingOn).toBe(addressOf.carol);
    void dave;
  });

  it("lets only one of two sessions asking each other at once through: the other is refused as a deadlock", async () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    // alice asks bob in the moment bob has judged alice and not yet written his record naming her.
    const bobsRecord = `${mailRoot}/running/${addressOf.bob}.json`;
    const rename = h.vol.renameSync.bind(h.vol);
    let alicesAsk: ReturnType<typeof alice.engine.ask> | undefined;
    h.vol.renameSync = ((from: string, to: string) => {
      const naming = String(to) === bobsRecord && JSON.parse(String(h.vol.readFileSync(from, "utf8"))).waitingOn;
      if (naming === addressOf.alice && alicesAsk === undefined)
        alicesAsk = alice.engine.ask("bob", "and you?", undefined);
      rename(from, to);
    }) as typeof h.vol.renameSync;
    const bobsAsk = bob.engine.ask("alice", "what do you want?", undefined);

    expect(alicesAsk).toBeDefined();
    const [bobs, alices] = [await peek(bobsAsk), await peek(alicesAsk!)];
    // Written before judging, bob finds alice waiting on him: alice's ask waits, bob's is refused.
    expect(alices).toBe("pending");
    expect(bobs === "pending" ? bobs : bobs._unsafeUnwrapErr()).toEqual({ kind: "deadlock", to: addressOf.alice });
    expect(h.files("bob", "new")).toHaveLength(1);
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.record("alice")?.waitingOn).toBe(addressOf.bob);
    expect(h.record("bob")?.waitingOn).toBe("");
  });

  // "when to does not resolve, is ambiguous or is this session"
  it("refuses to ask this session itself and a name no session has", async () => {
    const h = createHarness();
    const bob = h.launch("bob");
    expect((await bob.engine.ask("bob", "me?", undefined))._unsafeUnwrapErr()).toMatchObject({
      kind: "address",
      error: { kind: "self" },
    });
    expect((await bob.engine.ask("nobody", "you?", undefined))._unsafeUnwrapErr()).toMatchObject({
      kind: "address",
      error: { kind: "not-found" },
    });
    expect(h.files("bob", "new")).toEqual([]);
  });
});

describe("ask: an answer that arrives after the wait ended", () => {
  // "A reply to an ask that is no longer waiting (it timed out, the user stopped it, or the session restarted)
  // is delivered like a message: it starts a turn, and its label says the ask stopped waiting."
  it("injects a late answer to an aborted ask like a message, saying the ask stopped waiting", async () => {
    const { h, alice, bob, seenByBob, controller, pending } = asking();
    controller.abort();
    await pending;
    h.hint("alice");
    alice.completeRun("Port 8080, sorry for the wait.");
    h.hint("bob");

    expect(seenByBob).toHaveLength(1);
    expect(bob.host.injected).toHaveLength(1);
    expect(bob.host.injected[0]?.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
    expect(bob.host.injected[0]?.mail.content).toContain("had stopped waiting");
    expect(bob.host.injected[0]?.mail.content).toContain("Port 8080, sorry for the wait.");
  });

  it("injects a late answer to a timed-out ask like a message", async () => {
    const { h, alice, bob, pending } = asking();
    h.advance(askWaitMs);
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "timeout" });
    alice.completeRun("Finally: port 8080.");
    h.hint("bob");

    expect(bob.host.injected.map((i) => i.options)).toEqual([{ triggerTurn: true, deliverAs: "steer" }]);
    expect(bob.host.injected[0]?.mail.content).toContain("had stopped waiting");
  });

  it("injects a late answer that reaches the asker after it restarted like a message", async () => {
    const { h, alice, pending } = asking();
    h.shutdown("bob");
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "aborted" });
    h.hint("alice");
    alice.completeRun("Port 8080.");
    const bob = h.launch("bob");

    expect(bob.host.injected).toHaveLength(1);
    expect(bob.host.injected[0]?.options).toEqual({ triggerTurn: true, deliverAs: "steer" });
    expect(bob.host.injected[0]?.mail.content).toContain("had stopped waiting");
  });
});
