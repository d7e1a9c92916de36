// One name for both halves, as the bus keeps it: Pi's name in the record, a label refused when
// another running session (bus or mailbox) is called so, a derived label following Pi's name, and a
// send that reaches a session by its Pi name.
import { afterEach, describe, expect, it, vi } from "vitest";
import { describeBusError } from "../../../../src/domain/bus/bus-errors.js";
import { createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

describe("one name", () => {
  it("writes Pi's name into the record beside the label", () => {
    const h = createBusHarness();
    h.start("alice", { sessionName: "Code Reviewer 🚀" }).engine.join({});
    expect(h.record("alice")).toMatchObject({ label: "code-reviewer", name: "Code Reviewer 🚀" });
    expect(h.record("alice")?.named).toBeUndefined();
  });

  it("refuses a label another bus member uses as its Pi name, naming it and its id prefix", () => {
    const h = createBusHarness();
    h.start("alice", { sessionName: "builder" }).engine.join({ label: "api" });
    const bob = h.start("bob");
    const refused = bob.engine.join({ label: "builder" })._unsafeUnwrapErr();
    expect(refused).toMatchObject({ kind: "label-taken", label: "builder", holder: idOf.alice, holderName: "builder" });
    expect(describeBusError(refused)).toBe(
      `The label builder is taken by the running session builder (id ${idOf.alice.slice(0, 8)}…); nothing was changed. Join under another label, or without one for a derived label.`,
    );
    expect(h.record("bob")).toBeUndefined();
  });

  it("refuses a label a session of the mailbox alone is named, and derives around it", () => {
    const h = createBusHarness();
    const mailOnly = "0190ffff-0000-7000-8000-00000000abcd";
    const bob = h.start("bob", { sessionName: "reviewer" });
    bob.host.mailNames = () => [{ id: mailOnly, name: "reviewer" }];
    expect(bob.engine.join({ label: "reviewer" })._unsafeUnwrapErr()).toMatchObject({ holder: mailOnly });
    // The name it would derive is held too: it takes the end of its id, as for a held label.
    expect(bob.engine.join({})._unsafeUnwrap().label).toBe("reviewer-0b0b");
  });

  it("moves a derived label with Pi's name, keeping how it listens; a label asked for stays", () => {
    const h = createBusHarness();
    const alice = h.start("alice", { sessionName: "first" });
    alice.engine.join({ wake: true });
    alice.engine.renamed("Second Name");
    expect(h.record("alice")).toMatchObject({ label: "second-name", name: "Second Name", wake: true, armed: true });
    alice.engine.join({ label: "fixed" });
    expect(h.record("alice")?.named).toBe(true);
    alice.engine.renamed("Third");
    expect(h.record("alice")).toMatchObject({ label: "fixed", name: "Third" });
  });

  it("reaches a session by its Pi name, and refuses a name two sessions answer to, naming each", () => {
    const h = createBusHarness();
    h.start("alice", { sessionName: "Code Reviewer" }).engine.join({});
    const bob = h.start("bob");
    bob.engine.join({ label: "bob" });
    const sent = bob.engine.send({ to: "Code Reviewer", text: "look at this", kind: "message" });
    expect(sent._unsafeUnwrap().delivered).toEqual([{ id: idOf.alice, label: "code-reviewer" }]);
    const carol = h.start("carol", { sessionName: "Code Reviewer" });
    carol.engine.join({});
    const refused = bob.engine.send({ to: "Code Reviewer", text: "which?", kind: "message" })._unsafeUnwrapErr();
    expect(refused).toMatchObject({ kind: "ambiguous-recipient", to: "Code Reviewer" });
    expect(describeBusError(refused)).toMatch(
      /^"Code Reviewer" names 2 active sessions: .*Nothing was sent; send to a label/,
    );
  });
});

describe("mail you can follow on the bus", () => {
  it("shows on each row how many of this session's messages its inbox still holds, until they are read", () => {
    const h = createBusHarness();
    const alice = h.start("alice");
    alice.engine.join({ label: "alice" });
    const bob = h.start("bob");
    bob.engine.join({ label: "bob" });
    bob.engine.send({ to: "alice", text: "one", kind: "message" });
    bob.engine.send({ to: "alice", text: "two", kind: "message" });
    const row = () =>
      bob.engine
        .status()
        ._unsafeUnwrap()
        .sessions.find((s) => s.label === "alice");
    expect(row()?.unreadFromThis).toBe(2);
    alice.engine.inbox(1);
    expect(row()?.unreadFromThis).toBe(1);
    alice.engine.inbox(5);
    expect(row()?.unreadFromThis).toBeUndefined();
    expect(
      alice.engine
        .status()
        ._unsafeUnwrap()
        .sessions.every((s) => s.unreadFromThis === undefined),
    ).toBe(true);
  });
});
