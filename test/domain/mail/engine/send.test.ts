import { describe, expect, it } from "vitest";
import { addressOf, createHarness, type Harness, mailRoot, type Name } from "./harness.js";

/** Plants mail with `hops` from carol into `to`'s inbox and enters it into `to`'s conversation. */
function readMailWithHops(h: Harness, to: Name, hops: number, kind: "message" | "request" = "message"): string {
  const planted = h.plant({ from: addressOf.carol, to: addressOf[to], kind, hops });
  h.hint(to);
  h.session(to).enterAll();
  return planted.id;
}

describe("hop counts stamped on mail", () => {
  // "Requests from /mailbox carry 0 and are never refused: their sender acts for the user."
  it("stamps 0 on a request via command, whatever the run's count", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.runStarted();
    readMailWithHops(h, "bob", 3);
    expect(bob.engine.hops()).toBe(4);
    expect(bob.engine.request("alice", "job", "command")._unsafeUnwrap().envelope.hops).toBe(0);
  });

  // "Otherwise it is the highest hops plus one among the envelopes that started the turn or steered into it"
  it("stamps h+1 on a send after reading mail with hops h", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    readMailWithHops(h, "bob", 1);
    readMailWithHops(h, "bob", 3);
    readMailWithHops(h, "bob", 2);
    expect(bob.engine.send("alice", "onward")._unsafeUnwrap().envelope.hops).toBe(4);
  });

  // "A reply shown quietly starts no turn and does not count."
  it("does not count a reply shown quietly", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    h.plant({ from: addressOf.carol, to: addressOf.bob, kind: "reply", status: "done", hops: 4, in_reply_to: ["x"] });
    h.hint("bob");
    bob.enterAll();
    expect(bob.engine.hops()).toBe(0);
  });

  // "...and a reply a message:inbound listener took over."
  it("counts a reply a listener took over", () => {
    const h = createHarness();
    const bob = h.launch("bob", {
      listener: (mail) => {
        mail.handled = true;
      },
    });
    h.plant({ from: addressOf.carol, to: addressOf.bob, kind: "reply", status: "done", hops: 4, in_reply_to: ["x"] });
    h.hint("bob");
    expect(bob.engine.hops()).toBe(5);
  });

  // "It is 0 once the user starts or steers the turn: any Pi input event"
  it("resets the count to 0 on input(), and mail entered after it raises it again (typing once is no escape)", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    readMailWithHops(h, "bob", 3);
    bob.engine.input();
    expect(bob.engine.send("alice", "typed by a person")._unsafeUnwrap().envelope.hops).toBe(0);
    readMailWithHops(h, "bob", 3);
    expect(bob.engine.hops()).toBe(4);
  });

  // "The count starts afresh when the run settles."
  it("starts the count afresh when the run settles", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.runStarted();
    readMailWithHops(h, "bob", 3);
    bob.engine.runSettled({ kind: "done", text: "ok" });
    expect(bob.engine.send("alice", "later")._unsafeUnwrap().envelope.hops).toBe(0);
  });

  // "One emitted during a run carries that run's count and is not refused at send time" and
  // "A message:send emitted while the session is idle carries 0 too."
  it("stamps the run's count on a hook request during a run, even past the limit, and 0 while idle", () => {
    const h = createHarness();
    h.writeConfig(JSON.stringify({ hopLimit: 2 }));
    h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.runStarted();
    readMailWithHops(h, "bob", 3);
    expect(bob.engine.request(addressOf.alice, "delegated", "hook")._unsafeUnwrap().envelope.hops).toBe(4);
    bob.engine.runSettled({ kind: "done", text: "ok" });
    expect(bob.engine.request(addressOf.alice, "delegated", "hook")._unsafeUnwrap().envelope.hops).toBe(0);
  });
});

describe("the hop limit", () => {
  // "session_mail_send and session_mail_ask ... are refused before anything is written once the count has
  // reached the limit"
  it("refuses send and ask at the limit from session-mail.json, writing nothing", async () => {
    const h = createHarness();
    h.writeConfig(JSON.stringify({ hopLimit: 2 }));
    h.launch("alice");
    const bob = h.launch("bob");
    readMailWithHops(h, "bob", 1);

    expect(bob.engine.send("alice", "again")._unsafeUnwrapErr()).toEqual({ kind: "hop-limit", hops: 2, limit: 2 });
    expect((await bob.engine.ask("alice", "again?", undefined))._unsafeUnwrapErr()).toEqual({
      kind: "hop-limit",
      hops: 2,
      limit: 2,
    });
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("bob", "sent")).toEqual([]);
    expect(h.record("bob")?.waitingOn).toBe("");
  });

  it("allows a send one hop below the limit", () => {
    const h = createHarness();
    h.writeConfig(JSON.stringify({ hopLimit: 2 }));
    h.launch("alice");
    const bob = h.launch("bob");
    readMailWithHops(h, "bob", 0);
    expect(bob.engine.send("alice", "once more")._unsafeUnwrap().envelope.hops).toBe(1);
  });

  // "Automatic answers carry the count and are never refused."
  it("writes the automatic reply even above the limit, carrying the count", () => {
    const h = createHarness();
    h.writeConfig(JSON.stringify({ hopLimit: 2 }));
    const bob = h.launch("bob");
    bob.engine.runStarted();
    const request = readMailWithHops(h, "bob", 5, "request");
    bob.engine.runSettled({ kind: "done", text: "done anyway" });

    expect(h.envelopes("carol", "new")).toMatchObject([
      { kind: "reply", status: "done", hops: 6, in_reply_to: [request], body: "done anyway" },
    ]);
  });

  // "5 unless session-mail.json says otherwise"
  it("uses the default limit of 5 without a config file", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    readMailWithHops(h, "bob", 3);
    expect(bob.engine.send("alice", "fifth hop").isOk()).toBe(true);
    readMailWithHops(h, "bob", 4);
    expect(bob.engine.send("alice", "sixth hop")._unsafeUnwrapErr()).toEqual({ kind: "hop-limit", hops: 5, limit: 5 });
  });
});

describe("send: what is written and what is refused", () => {
  // "To a running session it is delivered at once; to a closed session, by full id, it waits in that session's
  // inbox and the result says so."
  it("writes a message, keeps a copy in sent/, and tells whether the recipient runs", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    const toAlice = bob.engine.send("alice", "hi")._unsafeUnwrap();
    const toDave = bob.engine.send(addressOf.dave, "hi dave")._unsafeUnwrap();

    expect(toAlice.envelope).toMatchObject({ kind: "message", from: addressOf.bob, to: addressOf.alice, status: "" });
    expect(toAlice.recipientRunning).toBe(true);
    expect(toAlice.path.startsWith(`${mailRoot}/${addressOf.alice}/new/`)).toBe(true);
    expect(toDave.recipientRunning).toBe(false);
    expect(h.envelopes("dave", "new")).toEqual([toDave.envelope]);
    expect(
      h
        .envelopes("bob", "sent")
        .map((e) => e.id)
        .sort(),
    ).toEqual([toAlice.envelope.id, toDave.envelope.id].sort());
  });

  // Addressing: "to matches running sessions by exact Pi session name, then by an id prefix of at least 8 characters."
  it("resolves a running session by name and by an 8-character id prefix", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    expect(bob.engine.send("alice", "by name")._unsafeUnwrap().envelope.to).toBe(addressOf.alice);
    expect(bob.engine.send("aaaaaaaa", "by prefix")._unsafeUnwrap().envelope.to).toBe(addressOf.alice);
  });

  // "Refused when to does not resolve, is ambiguous or is this session, when the text is empty"
  it("refuses an unknown name, an ambiguous name, this session and an empty text, writing nothing", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    const carol = h.launch("carol");
    carol.engine.renamed("alice");

    expect(bob.engine.send("nobody", "x")._unsafeUnwrapErr()).toMatchObject({ error: { kind: "not-found" } });
    expect(bob.engine.send("alice", "x")._unsafeUnwrapErr()).toMatchObject({ error: { kind: "ambiguous" } });
    expect(bob.engine.send("bob", "x")._unsafeUnwrapErr()).toMatchObject({ error: { kind: "self" } });
    expect(bob.engine.send(addressOf.alice, " \n ")._unsafeUnwrapErr()).toEqual({ kind: "empty-body" });
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("carol", "new")).toEqual([]);
    expect(h.files("bob", "sent")).toEqual([]);
  });

  // "message:send does not resolve names: its to is an address."
  it("refuses a hook request to something that is not an address, or to this session", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    expect(bob.engine.request("../alice", "x", "hook")._unsafeUnwrapErr()).toEqual({
      kind: "invalid-address",
      to: "../alice",
    });
    expect(bob.engine.request("bob's mate", "x", "hook")._unsafeUnwrapErr()).toMatchObject({ kind: "invalid-address" });
    expect(bob.engine.request(addressOf.bob, "x", "hook")._unsafeUnwrapErr()).toMatchObject({
      error: { kind: "self" },
    });
    expect(h.files("alice", "new")).toEqual([]);
  });

  it("refuses every send before sessionStarted and after shutdown", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    h.shutdown("bob");
    expect(bob.engine.send(addressOf.alice, "x")._unsafeUnwrapErr()).toEqual({ kind: "no-session" });
    expect(bob.engine.request(addressOf.alice, "x", "hook")._unsafeUnwrapErr()).toEqual({ kind: "no-session" });
    expect(h.files("alice", "new")).toEqual([]);
  });
});

describe("config warnings", () => {
  // "An unreadable or invalid file, or an invalid value, also means the default (5 hops, 30 days), with one
  // warning per session."
  it("warns once per session about an invalid session-mail.json, even across several sends", () => {
    const h = createHarness();
    h.writeConfig("{ not json");
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    for (const text of ["one", "two", "three"]) bob.engine.send("alice", text);
    void bob.engine.ask("alice", "four?", undefined);

    for (const session of [alice, bob]) {
      expect(session.warnings()).toEqual([expect.stringContaining("/agent/session-mail.json is not valid JSON")]);
    }
  });

  it("warns once, at the next send, when the file turns invalid after start, and uses the default limit", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    h.writeConfig(JSON.stringify({ hopLimit: 0 }));
    readMailWithHops(h, "bob", 3);
    expect(bob.engine.send("alice", "one").isOk()).toBe(true);
    expect(bob.engine.send("alice", "two").isOk()).toBe(true);
    expect(bob.warnings()).toEqual([expect.stringContaining("hopLimit must be a positive integer")]);
  });
});

describe("the turn's hop count in the running record", () => {
  // A program the session's tools run (the shell's switchboard) reads the count there and carries it on.
  it("is written while the turn is busy and above 0, follows mail that steers in, and goes at settle", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.runStarted();
    expect(h.record("bob")?.hops).toBeUndefined();
    readMailWithHops(h, "bob", 2);
    expect(h.record("bob")).toMatchObject({ state: "busy", hops: 3 });
    expect(alice.engine.list().find((s) => s.address === addressOf.bob)?.hops).toBe(3);
    readMailWithHops(h, "bob", 4);
    expect(h.record("bob")?.hops).toBe(5);
    bob.completeRun("done");
    expect(h.record("bob")).toMatchObject({ state: "idle" });
    expect(h.record("bob")?.hops).toBeUndefined();
  });
});
