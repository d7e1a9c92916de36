// The status view of as many claims as one listing of claims/ holds: built in one pass (a copy of
// an owner's list per claim froze Pi for seconds at 20,000), every live claim listed, sorted.
import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeClaimName } from "../../../../src/domain/bus/claim-key.js";
import { claimsListedMax } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

const keyOf = (index: number) => `src/f${String(index).padStart(5, "0")}.ts`;

describe("status with a full claims/ folder", () => {
  it("lists all 20,000 claims of a live session, sorted, in status and in the board's snapshot", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    const joinToken = h.record("alice")?.joinToken ?? "";
    // Written in reverse, so the view's sort is seen to work.
    for (let index = claimsListedMax - 1; index >= 0; index--) {
      const name = encodeClaimName({ key: keyOf(index), owner: idOf.alice, joinToken })._unsafeUnwrap();
      h.vol.writeFileSync(`${busRoot}/claims/${name}`, "", { mode: 0o600 });
    }
    expect(h.claimFiles()).toHaveLength(claimsListedMax);
    const expected = Array.from({ length: claimsListedMax }, (_, index) => keyOf(index));
    const bob = h.start("bob").engine;
    for (const view of [bob.snapshot()._unsafeUnwrap(), bob.status()._unsafeUnwrap()]) {
      const row = view.sessions.find((s) => s.label === "alice");
      expect(row?.claims).toHaveLength(claimsListedMax);
      expect(row?.claims).toEqual(expected);
    }
  });

  it("shows a claim swapped for another between two reads, the count unchanged (no stale sort reused)", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "alice" });
    const joinToken = h.record("alice")?.joinToken ?? "";
    const file = (key: string) =>
      `${busRoot}/claims/${encodeClaimName({ key, owner: idOf.alice, joinToken })._unsafeUnwrap()}`;
    for (const key of ["src/b.ts", "src/c.ts"]) h.vol.writeFileSync(file(key), "", { mode: 0o600 });
    const bob = h.start("bob").engine;
    const claimsOf = () =>
      bob
        .snapshot()
        ._unsafeUnwrap()
        .sessions.find((s) => s.label === "alice")?.claims;
    expect(claimsOf()).toEqual(["src/b.ts", "src/c.ts"]);
    expect(claimsOf()).toEqual(["src/b.ts", "src/c.ts"]);
    h.vol.unlinkSync(file("src/c.ts"));
    h.vol.writeFileSync(file("src/a.ts"), "", { mode: 0o600 });
    expect(claimsOf()).toEqual(["src/a.ts", "src/b.ts"]);
    expect(
      bob
        .status()
        ._unsafeUnwrap()
        .sessions.find((s) => s.label === "alice")?.claims,
    ).toEqual(["src/a.ts", "src/b.ts"]);
  });
});
