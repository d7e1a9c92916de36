// The run's hop count with the other half's: the turn's count is the higher of the two, and the
// mailbox tells the other half only its own (two halves folding each other's would loop).
import { describe, expect, it } from "vitest";
import type { AskLedger } from "../../../../src/domain/mail/engine/ask-ledger.js";
import type { Footer } from "../../../../src/domain/mail/engine/footer.js";
import { createRun } from "../../../../src/domain/mail/engine/run.js";

const run = (peer: () => number) => createRun({ ledger: {} as AskLedger, footer: {} as Footer, peerHops: peer });

describe("the run's hop count", () => {
  it("is the bus's count in a turn the bus raised, and its own once mail carries more", () => {
    let peer = 2;
    const r = run(() => peer);
    expect(r.hops().count).toBe(2);
    expect(r.ownHops()).toBe(0);
    r.mailEntered(4);
    expect(r.hops().count).toBe(5);
    peer = 0;
    expect(r.hops().count).toBe(5);
    r.input();
    expect([r.hops().count, r.ownHops()]).toEqual([0, 0]);
  });
});
