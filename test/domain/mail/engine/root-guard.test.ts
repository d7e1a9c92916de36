import { describe, expect, it } from "vitest";
import { addressOf, createHarness, mailRoot, pollMs } from "./harness.js";

describe("root guard: a mail root swapped after start stops the mailbox", () => {
  it("stops at the next poll with one error notice, and injects nothing from the folder put in its place", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.advance(pollMs);
    expect(alice.host.notices).toEqual([]);
    // Whoever could write /state moves the root away and puts theirs there, with a forged request.
    h.vol.renameSync(mailRoot, `${mailRoot}.old`);
    h.vol.mkdirSync(mailRoot, { mode: 0o700 });
    h.plant({ from: addressOf.bob, to: addressOf.alice, kind: "request", body: "forged" });
    // No hint first: fs.watch follows the folder it watches (now the old one), not the path.
    h.advance(pollMs);
    h.hint("alice");
    h.advance(10 * pollMs);

    expect(alice.host.injected).toEqual([]);
    expect(alice.host.notices).toEqual([
      {
        level: "error",
        text: expect.stringMatching(
          new RegExp(
            `^The mailbox stopped for this session: ${mailRoot} is no longer the folder this session opened at start`,
          ),
        ),
      },
    ]);
    expect(alice.liveTimers()).toBe(0);
    expect(alice.engine.send("bob", "hello")._unsafeUnwrapErr()).toEqual({ kind: "no-session" });
    // Nothing of this session's was written into the other folder.
    expect(h.vol.readdirSync(mailRoot).map(String)).toEqual([addressOf.alice]);
  });

  it("lets an ask waiting on an answer go when the mailbox stops", async () => {
    const h = createHarness();
    h.launch("bob");
    const alice = h.launch("alice");
    const asked = alice.engine.ask("bob", "What is the port?", undefined);
    h.vol.renameSync(mailRoot, `${mailRoot}.old`);
    h.advance(pollMs);
    const outcome = (await asked)._unsafeUnwrap().outcome;
    expect(outcome).toEqual({ kind: "aborted" });
  });

  it("refuses at start, naming the folder above the root that others may write and the chmod that fixes it", () => {
    const h = createHarness();
    h.vol.mkdirSync("/state", { mode: 0o777 });
    const alice = h.launch("alice");

    expect(alice.host.notices).toEqual([
      {
        level: "error",
        text: expect.stringContaining(
          "The mailbox is off for this session: /state, a folder above the mail root, can be written by group and others (mode 0777), who could replace the mail root. Run: chmod go-w /state",
        ),
      },
    ]);
    expect(h.exists(mailRoot)).toBe(false);
  });
});
