import { afterEach, describe, expect, it, vi } from "vitest";
import { inboxBodyCharsMax, messageTextCharsMax } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

function trio() {
  const h = createBusHarness();
  const [alice, bob, carol] = (["alice", "bob", "carol"] as const).map((name) => {
    const session = h.start(name);
    session.engine.join({ label: name });
    return session.engine;
  });
  return { h, alice: alice!, bob: bob!, carol: carol! };
}

describe("send", () => {
  it("writes one file into the recipient's inbox, by label or by id", () => {
    const { h, alice } = trio();
    expect(alice.send({ to: "bob", text: "one" })._unsafeUnwrap().delivered).toEqual([{ id: idOf.bob, label: "bob" }]);
    alice.send({ to: idOf.bob, text: "two", kind: "ask" });
    expect(h.inboxFiles("bob")).toHaveLength(2);
  });

  it("broadcasts an event to every other active session and skips a gone one", () => {
    const { h, alice } = trio();
    h.crash("carol");
    const report = alice.send({ to: "*", kind: "event", text: "contract v2" })._unsafeUnwrap();
    expect(report.delivered.map((r) => r.label)).toEqual(["bob"]);
    expect(h.inboxFiles("carol")).toEqual([]);
    expect(h.inboxFiles("alice")).toEqual([]);
  });

  it("refuses a broadcast of a plain message", () => {
    const { alice } = trio();
    expect(alice.send({ to: "*", text: "x" })._unsafeUnwrapErr()).toEqual({
      kind: "broadcast-needs-event",
      given: "message",
    });
  });

  it("refuses a gone recipient: mail to a dead process is not queued", () => {
    const { h, alice } = trio();
    h.crash("bob");
    expect(alice.send({ to: "bob", text: "x" })._unsafeUnwrapErr()).toMatchObject({
      kind: "recipient-gone",
      id: idOf.bob,
    });
    expect(h.inboxFiles("bob")).toEqual([]);
  });

  it("refuses itself, an unknown name, an unknown kind and text over the cap", () => {
    const { alice } = trio();
    expect(alice.send({ to: "alice", text: "x" })._unsafeUnwrapErr().kind).toBe("self-send");
    expect(alice.send({ to: "nobody", text: "x" })._unsafeUnwrapErr().kind).toBe("no-recipient");
    expect(alice.send({ to: "bob", text: "x", kind: "request" })._unsafeUnwrapErr().kind).toBe("unknown-kind");
    expect(alice.send({ to: "bob", text: "x".repeat(messageTextCharsMax + 1) })._unsafeUnwrapErr().kind).toBe(
      "text-too-long",
    );
  });

  it("resolves the paths a message names like claim paths", () => {
    const { alice, bob } = trio();
    expect(alice.send({ to: "bob", text: "see", paths: ["src-link/api"] })._unsafeUnwrap().paths).toEqual(["src/api"]);
    expect(alice.send({ to: "bob", text: "see", paths: ["/etc"] })._unsafeUnwrapErr().kind).toBe("outside-repository");
    expect(
      bob
        .inbox(undefined)
        ._unsafeUnwrap()
        .rows.map((r) => r.message.paths),
    ).toEqual([["src/api"]]);
  });

  it("reports a partial fan-out: delivered and failed, and succeeds", () => {
    const { h, alice } = trio();
    // Carol's inbox folder (made when she started listening) is now a file: nothing can be written into it.
    h.vol.rmSync(`${busRoot}/inbox/${idOf.carol}`, { recursive: true, force: true });
    h.vol.writeFileSync(`${busRoot}/inbox/${idOf.carol}`, "", { mode: 0o600 });
    const report = alice.send({ to: "*", kind: "event", text: "v2" })._unsafeUnwrap();
    expect(report.delivered.map((r) => r.label)).toEqual(["bob"]);
    expect(report.failed.map((f) => f.label)).toEqual(["carol"]);
  });

  it("fails when it reached nobody", () => {
    const { h, alice } = trio();
    h.vol.rmSync(`${busRoot}/inbox/${idOf.bob}`, { recursive: true, force: true });
    h.vol.writeFileSync(`${busRoot}/inbox/${idOf.bob}`, "", { mode: 0o600 });
    expect(alice.send({ to: "bob", text: "x" })._unsafeUnwrapErr().kind).toBe("nobody-reached");
  });
});

describe("inbox", () => {
  it("consumes oldest first by arrival, up to the limit, and counts the rest", () => {
    const { h, alice, bob } = trio();
    for (const text of ["1", "2", "3"]) {
      alice.send({ to: "bob", text });
      h.advance(1);
    }
    const first = bob.inbox(2)._unsafeUnwrap();
    expect([first.rows.map((r) => r.message.text), first.more]).toEqual([["1", "2"], 1]);
    expect(
      bob
        .inbox(undefined)
        ._unsafeUnwrap()
        .rows.map((r) => r.message.text),
    ).toEqual(["3"]);
    expect(h.inboxFiles("bob")).toEqual([]);
  });

  it("clips bodies and stops at the read budget, leaving the rest for the next read", () => {
    const { h, alice, bob } = trio();
    for (let i = 0; i < 15; i++) {
      alice.send({ to: "bob", text: `${i}`.padEnd(1_000, "x") });
      h.advance(1);
    }
    const read = bob.inbox(undefined)._unsafeUnwrap();
    expect(read.rows[0]?.body.length).toBe(inboxBodyCharsMax);
    expect(read.rows.length).toBeLessThan(15);
    expect(read.more).toBe(15 - read.rows.length);
    expect(h.inboxFiles("bob")).toHaveLength(read.more);
  });

  it("names mail it cannot read and leaves it on disk", () => {
    const { h, alice, bob } = trio();
    alice.send({ to: "bob", text: "fine" });
    h.vol.writeFileSync(`${busRoot}/inbox/${idOf.bob}/000000000000001-bad.json`, "{not json", { mode: 0o600 });
    const read = bob.inbox(undefined)._unsafeUnwrap();
    expect(read.rows.map((r) => r.message.text)).toEqual(["fine"]);
    expect(read.unreadable.map((u) => u.name)).toEqual(["000000000000001-bad.json"]);
    expect(read.more).toBe(0);
    expect(h.inboxFiles("bob")).toEqual(["000000000000001-bad.json"]);
  });
});
