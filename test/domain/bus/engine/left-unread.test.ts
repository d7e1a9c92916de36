// A session that leaves the bus with mail it never read: each live sender is told what was left,
// and the engine says what it left for the person's farewell line. A reload leaves nothing.
import { afterEach, describe, expect, it, vi } from "vitest";
import { messageTtlMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

function three() {
  const h = createBusHarness();
  const [alice, bob, carol] = (["alice", "bob", "carol"] as const).map((name) => {
    const s = h.start(name);
    s.engine.join({ label: name });
    return s;
  }) as [ReturnType<typeof h.start>, ReturnType<typeof h.start>, ReturnType<typeof h.start>];
  return { h, alice, bob, carol };
}

const eventsTo = (h: ReturnType<typeof createBusHarness>, name: "bob" | "carol") =>
  h
    .inboxFiles(name)
    .map((file) => JSON.parse(String(h.vol.readFileSync(`${busRoot}/inbox/${idOf[name]}/${file}`, "utf8"))))
    .filter((m) => m.kind === "event")
    .map((m) => m.text);

describe("leaving with unread mail", () => {
  it("tells each live sender what was left unread and says what it left; a gone sender is not written to", () => {
    const { h, alice, bob, carol } = three();
    // Apart in time, so they arrive in this order whatever their ids.
    bob.engine.send({ to: "alice", text: "please review src/api\nthe details follow" })._unsafeUnwrap();
    h.advance(10);
    bob.engine.send({ to: "alice", text: "and the tests" })._unsafeUnwrap();
    carol.engine.send({ to: "alice", text: "ping" })._unsafeUnwrap();
    h.crash("carol");
    const left = alice.engine.shutdown("quit");
    expect(left.leftUnread).toEqual({ files: 3, senders: ["bob", "carol"], told: ["bob"] });
    expect(eventsTo(h, "bob")).toEqual([
      'alice left the bus with 2 of your messages unread: "please review src/api", "and the tests". Send again to a session that is on the bus if it still matters.',
    ]);
    expect(eventsTo(h, "carol")).toEqual([]);
  });

  it("leaves nothing to say when the inbox is empty, or at a reload (the membership and its inbox stay)", () => {
    const { h, alice, bob, carol } = three();
    expect(alice.engine.shutdown("quit").leftUnread).toBeUndefined();
    bob.engine.send({ to: "carol", text: "for later" })._unsafeUnwrap();
    expect(carol.engine.shutdown("reload").leftUnread).toBeUndefined();
    expect(eventsTo(h, "bob")).toEqual([]);
  });

  it("tells no sender when a member steps out (it reads its inbox when it joins again), yet it leaves", () => {
    const { h, alice, bob } = three();
    bob.engine.send({ to: "alice", text: "still there when you come back" })._unsafeUnwrap();
    expect(alice.engine.shutdown("step-out")).toEqual({ released: [], leftUnread: undefined });
    expect(eventsTo(h, "bob")).toEqual([]);
    expect(h.inboxFiles("alice")).toHaveLength(1);
    expect(
      bob.engine
        .status()
        ._unsafeUnwrap()
        .sessions.map((s) => s.label),
    ).toEqual(["bob", "carol"]);
  });
});

describe("mail that expires unread", () => {
  it("tells each live sender what its recipient never read once the TTL removes it", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ label: "alice", listen: false });
    const bob = h.start("bob");
    bob.engine.join({ label: "bob", listen: false });
    bob.engine.send({ to: "alice", text: "please review\nthe diff", kind: "message" });
    bob.engine.send({ to: "alice", text: "and the tests", kind: "message" });
    h.advance(messageTtlMs + 60_000);
    bob.engine.status();
    expect(h.inboxFiles("alice")).toEqual([]);
    const read = bob.engine.inbox(5)._unsafeUnwrap();
    expect(read.rows.map(({ message: m }) => [m.fromLabel, m.kind, m.text])).toEqual([
      [
        "alice",
        "event",
        'alice never read 2 of your messages: "please review", "and the tests"; they expired after 24 hours. Send again to a session that is on the bus if it still matters.',
      ],
    ]);
  });
});
