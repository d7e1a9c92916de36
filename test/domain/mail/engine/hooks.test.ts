import { describe, expect, it } from "vitest";
import type { InboundMail } from "../../../../src/domain/mail/engine/index.js";
import { addressOf, createHarness, mailRoot } from "./harness.js";

describe("message:inbound listeners (engine.onInbound)", () => {
  // "pi-session-mail emits this for every claimed envelope before injecting it"
  it("emits synchronously before the mail is injected", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const injectedWhenEmitted: number[] = [];
    alice.engine.onInbound(() => injectedWhenEmitted.push(alice.host.injected.length));
    bob.engine.request("alice", "Please run the tests.", "command");
    h.hint("alice");

    expect(injectedWhenEmitted).toEqual([0]);
    expect(alice.host.injected).toHaveLength(1);
  });

  it("hands the listener the envelope and its path in this session's cur/", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const seen: InboundMail[] = [];
    alice.engine.onInbound((mail) => seen.push(mail));
    const sent = bob.engine.request("alice", "Please run the tests.", "command")._unsafeUnwrap();
    h.hint("alice");

    expect(seen).toHaveLength(1);
    expect(seen[0]?.envelope).toEqual(sent.envelope);
    expect(seen[0]?.path).toBe(`${mailRoot}/${addressOf.alice}/cur/${h.files("alice", "cur")[0]}`);
    expect(seen[0]?.requests).toEqual([]);
  });

  // "handled: set to true by a listener that shows the message itself; pi-session-mail then injects nothing"
  it("injects nothing when a listener sets handled", () => {
    const h = createHarness();
    const alice = h.launch("alice", {
      listener: (mail) => {
        mail.handled = true;
      },
    });
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    bob.engine.request("alice", "Please run the tests.", "command");
    h.hint("alice");

    expect(alice.host.injected).toEqual([]);
  });

  // "A request a listener handled still arms this session's reply and counts as read"
  it("answers a handled request at the next settle, counting it as read", () => {
    const h = createHarness();
    const alice = h.launch("alice", {
      listener: (mail) => {
        mail.handled = true;
      },
    });
    const bob = h.launch("bob");
    const sent = bob.engine.request("alice", "Please run the tests.", "command")._unsafeUnwrap();
    h.hint("alice");
    expect(alice.engine.footer()).toEqual({ pending: 0, read: 1, awaiting: 0 });

    alice.engine.runStarted();
    alice.engine.runSettled({ kind: "done", text: "Done by the extension." });
    const replies = h.envelopes("bob", "new");
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({
      kind: "reply",
      status: "done",
      in_reply_to: [sent.envelope.id],
      body: "Done by the extension.",
    });
  });

  // "requests: a reply's in_reply_to requests found in this session's sent/, each as { envelope, path }"
  it("gives a reply's listener the sent copies of the requests it answers", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const seen: InboundMail[] = [];
    bob.engine.onInbound((mail) => seen.push(mail));
    const first = bob.engine.request("alice", "First.", "command")._unsafeUnwrap();
    const second = bob.engine.request("alice", "Second.", "command")._unsafeUnwrap();
    h.hint("alice");
    alice.completeRun("Both done.");
    h.hint("bob");

    const sentFiles = h.files("bob", "sent");
    expect(seen).toHaveLength(1);
    expect(seen[0]?.envelope.in_reply_to).toEqual([first.envelope.id, second.envelope.id]);
    expect(seen[0]?.requests).toEqual([
      { envelope: first.envelope, path: `${mailRoot}/${addressOf.bob}/sent/${sentFiles[0]}` },
      { envelope: second.envelope, path: `${mailRoot}/${addressOf.bob}/sent/${sentFiles[1]}` },
    ]);
  });

  // "shorter than in_reply_to when a copy is missing"
  it("leaves out a request whose sent copy is missing", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const seen: InboundMail[] = [];
    bob.engine.onInbound((mail) => seen.push(mail));
    h.plant({ from: addressOf.alice, to: addressOf.bob, kind: "reply", status: "done", in_reply_to: ["never-sent"] });
    h.hint("bob");

    expect(seen).toHaveLength(1);
    expect(seen[0]?.requests).toEqual([]);
  });

  it("stops emitting to a listener after its unsubscribe function is called", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const seen: string[] = [];
    const off = alice.engine.onInbound((mail) => seen.push(mail.envelope.body));
    bob.engine.send("alice", "one");
    h.hint("alice");
    off();
    bob.engine.send("alice", "two");
    h.hint("alice");

    expect(seen).toEqual(["one"]);
    expect(alice.host.injected).toHaveLength(2);
  });
});

describe("message:scan (engine.scan)", () => {
  // "every waiting envelope has been emitted as message:inbound (and delivered) by the time emit returns"
  it("claims and emits everything waiting before it returns", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const seen: string[] = [];
    alice.engine.onInbound((mail) => seen.push(mail.envelope.id));
    const one = bob.engine.send("alice", "one")._unsafeUnwrap();
    const two = bob.engine.request("alice", "two", "command")._unsafeUnwrap();

    expect(alice.engine.scan()).toBe(true);
    expect(seen).toEqual([one.envelope.id, two.envelope.id]);
    expect(alice.host.injected).toHaveLength(2);
    expect(h.files("alice", "new")).toEqual([]);
  });

  it("claims mail waiting at start when called after sessionStarted returned, before the deferred tick", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const sent = bob.engine.send(addressOf.alice, "waiting")._unsafeUnwrap();
    const alice = h.start("alice");
    const seen: string[] = [];
    alice.engine.onInbound((mail) => seen.push(mail.envelope.id));

    alice.engine.scan();
    expect(seen).toEqual([sent.envelope.id]);
    h.tick();
    expect(seen).toEqual([sent.envelope.id]);
    expect(alice.host.injected).toHaveLength(1);
  });

  // "a listener that rebuilds its state synchronously in its own session_start sees that mail, whether it loads
  // before or after pi-session-mail"
  it("emits waiting mail to a listener registered before sessionStarted only on the later tick", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    bob.engine.send(addressOf.alice, "waiting");
    const seen: string[] = [];
    const alice = h.start("alice", {
      listener: (mail) => seen.push(mail.envelope.id),
    });
    expect(seen).toEqual([]);
    expect(alice.host.injected).toEqual([]);
    h.tick();
    expect(seen).toHaveLength(1);
  });

  it("says it did not scan when it could not claim everything before returning: a twin process, or a listener inside a claim", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const twin = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send(addressOf.alice, "one");
    expect(twin.engine.scan()).toBe(false);
    expect(twin.host.injected).toEqual([]);

    const fromListener: boolean[] = [];
    alice.engine.onInbound(() => fromListener.push(alice.engine.scan()));
    expect(alice.engine.scan()).toBe(true);
    expect(fromListener).toEqual([false]);
    expect(alice.host.injected).toHaveLength(1);
  });

  // "pi-session-mail never emits it from inside a session_start handler"
  it("emits nothing when scanned from inside sessionStarted (here, from the host's start-up warning)", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    bob.engine.send(addressOf.alice, "waiting");
    h.writeConfig("{ not json");
    const seen: string[] = [];
    const scanned: boolean[] = [];
    const alice = h.start("alice", {
      listener: (mail) => seen.push(mail.envelope.id),
      onNotice: (session) => scanned.push(session.engine.scan()),
    });
    expect(alice.host.notices).toHaveLength(1);
    // It says it did not scan: a consumer must not conclude that nothing waits.
    expect(scanned).toEqual([false]);
    expect(seen).toEqual([]);
    expect(h.files("alice", "new")).toHaveLength(1);
    h.tick();
    expect(seen).toHaveLength(1);
  });
});
