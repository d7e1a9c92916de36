// Issue 9 §3: "Held requests are visible". When the user stops a run that read a request, the
// request is held for the next completed run; the pane says so, naming the sender while it runs.
import { describe, expect, it } from "vitest";
import { describeHeld } from "../../../../src/domain/mail/settle-rules.js";
import { addressOf, createHarness } from "./harness.js";

function stoppedWith(requests: Array<["bob" | "carol", string]>) {
  const h = createHarness();
  const alice = h.launch("alice");
  const senders = { bob: h.launch("bob"), carol: h.launch("carol") };
  for (const [from, body] of requests) senders[from].engine.request("alice", body, "command");
  h.hint("alice");
  alice.engine.runStarted();
  alice.enterAll();
  const before = alice.host.notices.length;
  alice.engine.runSettled({ kind: "stopped", text: "partial" });
  return { h, alice, senders, notices: alice.host.notices.slice(before) };
}

describe("the notice about held requests", () => {
  it("says, when a stop holds a request, whose it is and that the next completed run answers it", () => {
    const { notices } = stoppedWith([["bob", "run the tests"]]);
    expect(notices).toEqual([
      {
        text: "The run was stopped, so the request from bob is held: the next run that completes answers it.",
        level: "info",
      },
    ]);
  });

  it("counts the requests held, by sender, and names a sender that no longer runs by its short id", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const carol = h.launch("carol");
    bob.engine.request("alice", "one", "command");
    bob.engine.request("alice", "two", "command");
    carol.engine.request("alice", "three", "command");
    h.hint("alice");
    h.shutdown("carol");
    alice.engine.runStarted();
    alice.enterAll();
    alice.engine.runSettled({ kind: "stopped", text: "" });
    expect(alice.host.notices.at(-1)?.text).toBe(
      "The run was stopped, so 3 requests are held (2 from bob, 1 from cccccccc): the next run that completes answers them.",
    );
  });

  it("is not given for a stop that holds nothing (an ask is answered stopped), nor for a run that completes", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    void bob.engine.ask("alice", "quick?", undefined);
    h.hint("alice");
    alice.engine.runStarted();
    alice.enterAll();
    const before = alice.host.notices.length;
    alice.engine.runSettled({ kind: "stopped", text: "" });
    alice.completeRun("done");
    expect(alice.host.notices.slice(before)).toEqual([]);
  });

  it("names a few senders and counts the rest", () => {
    const held = Array.from({ length: 8 }, (_, i) => ({
      id: `r${i}`,
      from: `0000000${i}-0000-7000-8000-000000000000` as (typeof addressOf)["bob"],
      kind: "request" as const,
    }));
    expect(describeHeld(held, (a) => a.slice(0, 8))).toBe(
      "The run was stopped, so 8 requests are held (1 from 00000000, 1 from 00000001, 1 from 00000002, 1 from 00000003, 1 from 00000004, and 3 more senders): the next run that completes answers them.",
    );
  });

  it("shows a sender's forged name with its controls as spaces", () => {
    const held = [{ id: "r", from: addressOf.bob, kind: "request" as const }];
    expect(describeHeld(held, () => "evil\n[mailbox] x")).toBe(
      "The run was stopped, so the request from evil [mailbox] x is held: the next run that completes answers it.",
    );
  });
});
