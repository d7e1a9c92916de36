// Issue 9 §3: "A long ask shows progress". While session_mail_ask waits, the engine tells its
// caller whom it waits on and for how long: once when the ask is written, then every 10 s of the
// engine's clock, and never after the wait ended.
import { describe, expect, it } from "vitest";
import type { AskProgress } from "../../../../src/domain/mail/engine/index.js";
import { askProgressIntervalMs, askWaitMs } from "../../../../src/domain/mail/limits.js";
import { addressOf, createHarness, peek } from "./harness.js";

function askingWithProgress() {
  const h = createHarness();
  const alice = h.launch("alice");
  const bob = h.launch("bob");
  const progress: AskProgress[] = [];
  const controller = new AbortController();
  const pending = bob.engine.ask("alice", "What is the port?", controller.signal, (p) => progress.push(p));
  return { h, alice, bob, progress, controller, pending };
}

describe("ask progress", () => {
  it("tells whom it waits on at once, then every 10 s of waiting", async () => {
    const { h, progress, pending } = askingWithProgress();
    expect(progress).toEqual([{ to: addressOf.alice, waitedMs: 0 }]);
    h.advance(askProgressIntervalMs - 1);
    expect(progress).toHaveLength(1);
    h.advance(1);
    h.advance(askProgressIntervalMs);
    expect(progress.map((p) => p.waitedMs)).toEqual([0, askProgressIntervalMs, 2 * askProgressIntervalMs]);
    expect(await peek(pending)).toBe("pending");
  });

  it("stops telling once the answer arrives, and leaves no timer behind", async () => {
    const { h, alice, bob, progress, pending } = askingWithProgress();
    h.hint("alice");
    alice.completeRun("8080");
    h.hint("bob");
    expect((await pending)._unsafeUnwrap().outcome.kind).toBe("answered");
    const told = progress.length;
    h.advance(5 * askProgressIntervalMs);
    expect(progress).toHaveLength(told);
    h.shutdown("alice");
    h.shutdown("bob");
    expect(bob.liveTimers()).toBe(0);
  });

  it("is bounded by the wait: at most one report per interval until the 10-minute timeout", async () => {
    const { h, progress, pending } = askingWithProgress();
    h.advance(askWaitMs);
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "timeout" });
    expect(progress.length).toBe(askWaitMs / askProgressIntervalMs);
    h.advance(askWaitMs);
    expect(progress.length).toBe(askWaitMs / askProgressIntervalMs);
  });

  it("tells nothing for an ask refused before it is written", async () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const progress: AskProgress[] = [];
    const refused = await bob.engine.ask("nobody", "hi", undefined, (p) => progress.push(p));
    expect(refused.isErr()).toBe(true);
    expect(progress).toEqual([]);
  });
});
