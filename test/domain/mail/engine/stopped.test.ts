// Issue 8 §3: a session stopped with Ctrl-Z (SIGSTOP) is listed as stopped, and an ask to it is
// refused at once, writing nothing, instead of waiting 10 minutes for a process that cannot run.
import { describe, expect, it } from "vitest";
import { describeSessions } from "../../../../src/pi/mail/roster-texts.js";
import { describeSendError } from "../../../../src/pi/mail/texts.js";
import { addressOf, createHarness } from "./harness.js";

function stoppedBob() {
  const h = createHarness();
  const alice = h.launch("alice");
  const bob = h.launch("bob");
  h.table.stop(bob.pid);
  return { h, alice, bob };
}

describe("a stopped session", () => {
  it("is listed as stopped, still running, and so is shown by session_mail_list", () => {
    const { alice } = stoppedBob();
    const listed = alice.engine.list().find((s) => s.address === addressOf.bob);
    expect(listed).toMatchObject({ liveness: "alive", stopped: true, state: "idle" });
    expect(describeSessions(alice.engine.list())).toMatch(
      /- bob \S+: stopped \(suspended with Ctrl-Z; fg in its terminal/,
    );
  });

  it("refuses an ask to it at once, writing nothing: no ask in its new/, no sent copy, no waitingOn", async () => {
    const { h, alice } = stoppedBob();
    const result = await alice.engine.ask("bob", "are you there?", undefined);
    expect(result._unsafeUnwrapErr()).toEqual({ kind: "target-stopped", to: addressOf.bob });
    expect(h.files("bob", "new")).toEqual([]);
    expect(h.files("alice", "sent")).toEqual([]);
    expect(h.record("alice")?.waitingOn).toBe("");
    expect(alice.footer()).toBeUndefined();
  });

  it("says in the refusal that fg resumes it and that session_mail_send leaves it a message", () => {
    const text = describeSendError({ kind: "target-stopped", to: addressOf.bob });
    expect(text).toContain(`${addressOf.bob} is stopped`);
    expect(text).toContain("Ctrl-Z");
    expect(text).toContain("fg in its terminal");
    expect(text).toContain("session_mail_send");
  });

  it("still takes a message, and is asked normally once it is continued", async () => {
    const { h, alice, bob } = stoppedBob();
    expect(alice.engine.send("bob", "for when you are back").isOk()).toBe(true);
    h.table.resume(bob.pid);
    expect(alice.engine.list().find((s) => s.address === addressOf.bob)?.stopped).toBe(false);
    const pending = alice.engine.ask("bob", "back?", undefined);
    h.hint("bob");
    bob.completeRun("back");
    h.hint("alice");
    expect((await pending)._unsafeUnwrap().outcome).toMatchObject({ kind: "answered" });
  });
});
