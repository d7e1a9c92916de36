import { afterEach, describe, expect, it, vi } from "vitest";
import { systemClock } from "../../../src/adapters/node/system-clock.js";

/** Resolves when `done()` is true, polling on macrotasks; fails past the deadline instead of hanging. */
async function waitFor(done: () => boolean, deadlineMs = 5_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("condition not met before the deadline");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("systemClock", () => {
  it("reads the wall clock", () => {
    const before = Date.now();
    const now = systemClock.now();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it("fires a timer once, no earlier than its delay", async () => {
    const start = Date.now();
    let firedAt: number | undefined;
    let fires = 0;
    systemClock.setTimer(20, () => {
      fires++;
      firedAt = Date.now();
    });
    await waitFor(() => firedAt !== undefined);
    expect(firedAt! - start).toBeGreaterThanOrEqual(19);
    expect(fires).toBe(1);
  });

  it("never fires a cancelled timer or deferred callback", async () => {
    const fired: string[] = [];
    systemClock.setTimer(1, () => fired.push("cancelled timer")).cancel();
    systemClock.defer(() => fired.push("cancelled defer")).cancel();
    let witness = false;
    // A later timer firing proves the cancelled ones had their turn and did not run.
    systemClock.setTimer(30, () => {
      witness = true;
    });
    await waitFor(() => witness);
    expect(fired).toEqual([]);
  });

  it("runs a deferred callback after the caller's stack, not inside it", async () => {
    const order: string[] = [];
    systemClock.defer(() => order.push("deferred"));
    order.push("caller");
    await waitFor(() => order.length === 2);
    expect(order).toEqual(["caller", "deferred"]);
  });

  it("unrefs timers and deferred callbacks so they never keep the process alive", () => {
    const timeouts = vi.spyOn(globalThis, "setTimeout");
    const immediates = vi.spyOn(globalThis, "setImmediate");
    const timer = systemClock.setTimer(60_000, () => {});
    const deferred = systemClock.defer(() => {});
    const timeout = timeouts.mock.results[0]?.value as NodeJS.Timeout;
    const immediate = immediates.mock.results[0]?.value as NodeJS.Immediate;
    expect(timeout.hasRef()).toBe(false);
    expect(immediate.hasRef()).toBe(false);
    timer.cancel();
    deferred.cancel();
  });

  it("clamps a delay beyond setTimeout's range instead of letting it fire at once", () => {
    const timeouts = vi.spyOn(globalThis, "setTimeout");
    systemClock.setTimer(2 ** 40, () => {}).cancel();
    systemClock.setTimer(-5, () => {}).cancel();
    expect(timeouts.mock.calls.map((call) => call[1])).toEqual([2 ** 31 - 1, 0]);
  });
});
