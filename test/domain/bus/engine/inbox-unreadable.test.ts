// More files this build cannot read than one inbox page holds never starve the mail behind them:
// `inbox` returns it, and names every unreadable file it walked past, leaving each on disk (found
// by test/stress/bus-hostile-input.test.ts: a page of 50 unreadable files hid all later mail).
import { afterEach, describe, expect, it, vi } from "vitest";
import { inboxLimitMax } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

describe("inbox behind unreadable mail", () => {
  it("returns mail that arrived after more than a page of unreadable files, and names each of them", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    const bob = h.start("bob").engine;
    alice.join({ label: "alice" });
    bob.join({ label: "bob" });
    const junk = Array.from({ length: inboxLimitMax + 10 }, (_, i) => `00000000000000${i % 10}-bad-${i}.json`);
    for (const name of junk) h.vol.writeFileSync(`${busRoot}/inbox/${idOf.bob}/${name}`, "{bad", { mode: 0o600 });
    h.advance(1);
    alice.send({ to: "bob", text: "behind the junk" });
    const read = bob.inbox(undefined)._unsafeUnwrap();
    expect(read.rows.map((row) => row.message.text)).toEqual(["behind the junk"]);
    expect(read.unreadable.map((u) => u.name).sort()).toEqual([...junk].sort());
    expect(read.more).toBe(0);
    expect(h.inboxFiles("bob")).toEqual([...junk].sort());
  });
});
