// The board's read in steps: a full claims/ folder is listed a page per step (the board gives Pi's
// loop back between steps), and the view the last step gives is the one snapshot gives.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import type { ClaimName } from "../../../../src/domain/bus/bus-files.js";
import { encodeClaimName, encodeMarkName } from "../../../../src/domain/bus/claim-key.js";
import type { BusEngine, StatusView } from "../../../../src/domain/bus/engine/index.js";
import { claimsListedMax, claimsPageEntriesMax } from "../../../../src/domain/bus/limits.js";
import { type BusHarness, busRoot, createBusHarness, idOf, type Name } from "./harness.js";

afterEach(() => vi.useRealTimers());

const claimsFolder = `${busRoot}/claims`;
const keyOf = (index: number) => `src/f${String(index).padStart(5, "0")}.ts`;

/** Counts the entries read from claims/ and its folder handles opened and closed. */
function countingClaims() {
  const counts = { entries: 0, opened: 0, closed: 0 };
  const wrapFs = (fs: FsLike): FsLike => ({
    ...fs,
    opendirSync(path: string) {
      const dir = fs.opendirSync(path);
      if (path !== claimsFolder) return dir;
      counts.opened++;
      return {
        readSync() {
          counts.entries++;
          return dir.readSync();
        },
        closeSync() {
          counts.closed++;
          dir.closeSync();
        },
      } as typeof dir;
    },
  });
  return { counts, wrapFs };
}

function write(h: BusHarness, name: string): void {
  h.vol.writeFileSync(`${claimsFolder}/${name}`, "", { mode: 0o600 });
}

function claimOf(h: BusHarness, who: Name, key: string, identity?: string): ClaimName {
  const joinToken = h.record(who)?.joinToken ?? "";
  return { key, owner: idOf[who], joinToken, ...(identity === undefined ? {} : { identity }) };
}

/** Steps the read to its end: the view, and the claims/ entries each step read. */
function readInSteps(engine: BusEngine, counts: { entries: number }): { view: StatusView; perStep: number[] } {
  const read = engine.snapshotSteps()._unsafeUnwrap();
  const perStep: number[] = [];
  for (;;) {
    const before = counts.entries;
    const view = read.step()._unsafeUnwrap();
    perStep.push(counts.entries - before);
    if (view !== undefined) return { view, perStep };
    if (perStep.length > 1_000) throw new Error("the read never ended");
  }
}

describe("the board's read of claims/ in steps", () => {
  it("reads 20,000 entries a page per step, never more than claimsPageEntriesMax in one, and gives snapshot's view", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "alice" });
    h.start("dave").engine.join({ label: "dave" });
    // Dave's process dies: its claims stay on disk and hold nothing.
    for (const key of ["src/dead-1.ts", "src/dead-2.ts"])
      write(h, encodeClaimName(claimOf(h, "dave", key))._unsafeUnwrap());
    h.crash("dave");
    // Alice's written in reverse (the view sorts them), a few marked observed, one with its identity.
    const alice = claimsListedMax - 20;
    for (let index = alice - 1; index >= 0; index--) {
      write(h, encodeClaimName(claimOf(h, "alice", keyOf(index)))._unsafeUnwrap());
    }
    for (const index of [3, 9_999, alice - 1]) {
      write(h, encodeMarkName(claimOf(h, "alice", keyOf(index)))._unsafeUnwrap());
    }
    write(h, encodeClaimName(claimOf(h, "alice", keyOf(7), "12-34"))._unsafeUnwrap());
    const { counts, wrapFs } = countingClaims();
    const bob = h.start("bob", { wrapFs }).engine;

    const { view, perStep } = readInSteps(bob, counts);

    expect(Math.max(...perStep)).toBeLessThanOrEqual(claimsPageEntriesMax);
    expect(perStep.filter((entries) => entries > 0).length).toBeGreaterThanOrEqual(
      claimsListedMax / claimsPageEntriesMax,
    );
    expect(counts.closed).toBe(counts.opened);
    const row = view.sessions.find((s) => s.label === "alice");
    expect(row?.claims).toHaveLength(alice);
    expect(row?.observed).toEqual([keyOf(3), keyOf(9_999), keyOf(alice - 1)]);
    expect(view.sessions.find((s) => s.label === "dave")?.claims).toEqual([]);
    expect(view).toEqual(bob.snapshot()._unsafeUnwrap());
  });

  it("reads a small bus in one step, the same view as snapshot", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    alice.claim(["src/api", "docs"])._unsafeUnwrap();
    const bob = h.start("bob").engine;
    bob.join({ label: "bob" });
    // An edit of a path nobody holds: bob's claim of it, observed.
    bob.checkEdit("/repo/README.md");
    const read = bob.snapshotSteps()._unsafeUnwrap();
    const view = read.step()._unsafeUnwrap();
    expect(view).toEqual(bob.snapshot()._unsafeUnwrap());
    expect(view?.sessions.find((s) => s.label === "alice")?.claims).toEqual(["docs", "src/api"]);
    expect(view?.sessions.find((s) => s.label === "bob")?.observed).toEqual(["README.md"]);
  });

  it("closes claims/ when a read is given up halfway", () => {
    const h = createBusHarness();
    h.start("alice").engine.join({ label: "alice" });
    for (let index = 0; index < 3 * claimsPageEntriesMax; index++) {
      write(h, encodeClaimName(claimOf(h, "alice", keyOf(index)))._unsafeUnwrap());
    }
    const { counts, wrapFs } = countingClaims();
    const bob = h.start("bob", { wrapFs }).engine;
    const read = bob.snapshotSteps()._unsafeUnwrap();
    expect(read.step()._unsafeUnwrap()).toBeUndefined();
    expect(counts).toEqual({ entries: claimsPageEntriesMax, opened: 1, closed: 0 });
    read.cancel();
    expect(counts.closed).toBe(1);
  });
});
