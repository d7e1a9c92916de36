import { afterEach, describe, expect, it, vi } from "vitest";
import { afterFirstListing, busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

describe("join", () => {
  it("derives the label from the real cwd's name and writes a listening record", () => {
    const h = createBusHarness();
    const report = h.start("alice").engine.join({})._unsafeUnwrap();
    expect(report).toEqual({
      id: idOf.alice,
      label: "repo",
      previousLabel: undefined,
      named: false,
      listening: true,
      wake: false,
      observing: true,
    });
    expect(h.record("alice")).toMatchObject({ id: idOf.alice, label: "repo", armed: true, wake: false, root: "/repo" });
  });

  it("derives it from Pi's session name when there is one", () => {
    const h = createBusHarness();
    expect(h.start("alice", { sessionName: "Billing Core" }).engine.join({})._unsafeUnwrap().label).toBe(
      "billing-core",
    );
  });

  it("suffixes a derived label a live session holds with the end of the own id", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({});
    expect(h.start("bob").engine.join({})._unsafeUnwrap().label).toBe("repo-0b0b");
  });

  it("refuses an explicit label a live session holds, naming its id, and changes nothing", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "api" });
    const bob = h.start("bob");
    bob.engine.join({ label: "web" });
    expect(bob.engine.join({ label: "api" })._unsafeUnwrapErr()).toMatchObject({
      kind: "label-taken",
      label: "api",
      holder: idOf.alice,
      holderName: "api",
    });
    expect(h.record("bob")?.label).toBe("web");
  });

  /** alice joins with `request` while bob joins with the same, in the moment after alice read the
   * records and before she wrote hers. */
  function racingJoins(request: { label?: string }) {
    const h = createBusHarness();
    const bob = h.start("bob");
    const race = afterFirstListing(`${busRoot}/sessions`, () => expect(bob.engine.join(request).isOk()).toBe(true));
    const alice = h.start("alice", { wrapFs: race.wrapFs });
    const joined = alice.engine.join(request);
    expect(race.ran()).toBe(true);
    const live = bob.engine
      .status()
      ._unsafeUnwrap()
      .sessions.filter((s) => s.state === "active");
    return { h, joined, labels: live.map((s) => s.label).sort() };
  }

  it("never lets two sessions joining at once both hold one label asked for: the later writer is refused", () => {
    const { h, joined, labels } = racingJoins({ label: "billing" });
    expect(joined._unsafeUnwrapErr()).toMatchObject({
      kind: "label-taken",
      label: "billing",
      holder: idOf.bob,
      holderName: "billing",
    });
    expect(labels).toEqual(["billing"]);
    expect(h.record("alice")).toBeUndefined();
  });

  it("derives a label again when a session joining at once took the same derived one", () => {
    const { joined, labels } = racingJoins({});
    const label = joined._unsafeUnwrap().label;
    expect(label).toMatch(/^repo-[0-9a-f]{4,}$/);
    expect(labels).toEqual(["repo", label]);
  });

  it("refuses a label outside the syntax without rewriting it", () => {
    const h = createBusHarness();
    expect(h.start("alice").engine.join({ label: "Bad Label" })._unsafeUnwrapErr().kind).toBe("invalid-label");
    expect(h.record("alice")).toBeUndefined();
  });

  it("frees a label whose holder's process is gone at once", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "api" });
    h.crash("alice");
    expect(h.start("bob").engine.join({ label: "api" })._unsafeUnwrap().label).toBe("api");
  });

  it("keeps the label on a rejoin without one, and relabels with one", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ label: "api" });
    expect(alice.engine.join({})._unsafeUnwrap().label).toBe("api");
    const relabel = alice.engine.join({ label: "web" })._unsafeUnwrap();
    expect([relabel.label, relabel.previousLabel, relabel.named]).toEqual(["web", "api", true]);
    expect(h.start("bob").engine.join({ label: "api" }).isOk()).toBe(true);
  });

  it("sets the listening mode on every join: wake, plain, and listen false", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ wake: true });
    expect(h.record("alice")).toMatchObject({ armed: true, wake: true });
    alice.engine.join({});
    expect(h.record("alice")).toMatchObject({ armed: true, wake: false });
    alice.engine.join({ listen: false, wake: true });
    expect(h.record("alice")).toMatchObject({ armed: false, wake: false });
  });

  it("keeps the join token across rejoins, so its claims stay its own", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({});
    const token = h.record("alice")?.joinToken;
    alice.engine.join({ label: "other", wake: true });
    expect(h.record("alice")?.joinToken).toBe(token);
  });

  it("answers not-started once the session shut down, and writes nothing", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.shutdown("quit");
    expect(alice.engine.join({})._unsafeUnwrapErr()).toEqual({ kind: "not-started" });
    expect(alice.engine.claim(["src"])._unsafeUnwrapErr()).toEqual({ kind: "not-started" });
    expect(h.record("alice")).toBeUndefined();
  });
});

describe("the implicit join", () => {
  it("joins on the first inbox, claim, release or send, listening for the next turn", () => {
    for (const act of ["inbox", "claim", "release", "send"] as const) {
      const h = createBusHarness();
      h.start("bob").engine.join({ label: "bob" });
      const alice = h.start("alice").engine;
      if (act === "inbox") alice.inbox(undefined);
      if (act === "claim") alice.claim(["src"]);
      if (act === "release") alice.release(["src"]);
      if (act === "send") alice.send({ to: "bob", text: "hi" });
      expect(h.record("alice"), act).toMatchObject({ label: "repo", armed: true, wake: false });
    }
  });

  it("never joins on status, nor on a send refused before it touches the bus", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.status();
    alice.snapshot();
    expect(alice.send({ to: "*", text: "" }).isErr()).toBe(true);
    expect(alice.send({ to: "bob", text: "x".repeat(4_001) }).isErr()).toBe(true);
    expect(h.record("alice")).toBeUndefined();
  });
});
