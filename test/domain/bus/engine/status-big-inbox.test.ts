// A status beside a peer's inbox of 30,000 messages: its prune looks at (lstat) a bounded number of
// that inbox's files, the next status goes on where it stopped (oldest first), no mail that has not
// expired goes, and a count the listing cut reads as "at least". (Each test failed before: one
// status lstat'ed 20,000 files of the peer's inbox, and the cut count read as exact.)
import { afterEach, describe, expect, it, vi } from "vitest";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { encodeBusMessage, messageFileName } from "../../../../src/domain/bus/bus-message.js";
import { inboxEntriesMax, messageTtlMs, pruneFilesLookedMax } from "../../../../src/domain/bus/limits.js";
import { busMessage } from "../fixtures.js";
import { type BusHarness, busRoot, createBusHarness, idOf, type Name, startMs } from "./harness.js";

afterEach(() => vi.useRealTimers());

const inboxOf = (name: Name) => `${busRoot}/inbox/${idOf[name]}`;

/** `count` messages into `name`'s inbox, named (sent) from `firstMs` a millisecond apart, each with
 * that time as its mtime (its arrival). Returns their file names, oldest first. */
function fill(h: BusHarness, name: Name, count: number, firstMs: number, tag: string): string[] {
  h.vol.mkdirSync(inboxOf(name), { recursive: true, mode: 0o700 });
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${tag}-${String(i).padStart(6, "0")}`;
    const file = messageFileName(firstMs + i, id);
    const path = `${inboxOf(name)}/${file}`;
    h.vol.writeFileSync(path, encodeBusMessage(busMessage(id, { to: idOf[name] })), { mode: 0o600 });
    h.vol.utimesSync(path, (firstMs + i) / 1000, (firstMs + i) / 1000);
    names.push(file);
  }
  return names;
}

/** A view of the file system that counts the lstats of each inbox folder. */
function countingLstats(): { wrapFs: (fs: FsLike) => FsLike; of(name: Name): number; reset(): void } {
  const counts = new Map<string, number>();
  const wrapFs = (fs: FsLike): FsLike => ({
    ...fs,
    lstatSync(path: string) {
      const folder = path.slice(0, path.lastIndexOf("/"));
      counts.set(folder, (counts.get(folder) ?? 0) + 1);
      return fs.lstatSync(path);
    },
  });
  return { wrapFs, of: (name) => counts.get(inboxOf(name)) ?? 0, reset: () => counts.clear() };
}

const expiredMs = startMs - messageTtlMs - 3_600_000;
const freshMs = startMs - 60_000;

describe("status beside a peer's huge inbox", () => {
  it("of 30,000 messages looks at no more than its budget of them, and counts them as at least the listing's bound", () => {
    const h = createBusHarness();
    const lstats = countingLstats();
    const alice = h.start("alice", { wrapFs: lstats.wrapFs }).engine;
    alice.join({ label: "alice" });
    h.start("bob").engine.join({ label: "bob" });
    fill(h, "bob", 30_000, freshMs - 30_000, "m");
    lstats.reset();
    const view = alice.status()._unsafeUnwrap();
    expect(lstats.of("bob")).toBeGreaterThan(0);
    expect(lstats.of("bob")).toBeLessThanOrEqual(pruneFilesLookedMax);
    const bob = view.sessions.find((s) => s.label === "bob");
    expect(bob).toMatchObject({ unread: inboxEntriesMax, unreadAtLeast: true });
    expect(view.sessions.find((s) => s.label === "alice")).toMatchObject({ unread: 0, unreadAtLeast: false });
    // The board's snapshot counts the same way.
    expect(
      alice
        .snapshot()
        ._unsafeUnwrap()
        .sessions.find((s) => s.label === "bob"),
    ).toMatchObject({
      unread: inboxEntriesMax,
      unreadAtLeast: true,
    });
  });

  it("expires the oldest first, goes on where it stopped at the next status, and removes no mail that has not expired", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    const bob = h.start("bob");
    bob.engine.join({ label: "bob" });
    const expired = fill(h, "bob", 3_000, expiredMs, "old");
    const fresh = fill(h, "bob", 3_000, freshMs - 3_000, "new");
    alice.status();
    const left = new Set(h.inboxFiles("bob"));
    // One status: its budget's worth of the oldest names, every one expired.
    expect(expired.filter((name) => !left.has(name))).toEqual(expired.slice(0, pruneFilesLookedMax));
    alice.status();
    // The next goes on after them: every expired message gone, every other still there.
    expect(h.inboxFiles("bob")).toEqual(fresh);
    // The reader never returns expired mail; it gets the oldest that has not expired.
    const read = bob.engine.inbox(3)._unsafeUnwrap();
    expect(read.rows.map((row) => row.message.id)).toEqual(["new-000000", "new-000001", "new-000002"]);
  });

  it("shares one budget among inboxes: the next status begins after the inbox where the last one's ran out", () => {
    const h = createBusHarness();
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    h.start("bob").engine.join({ label: "bob" });
    h.start("carol").engine.join({ label: "carol" });
    // bob's inbox comes before carol's, and holds more than one budget of expired mail.
    expect(idOf.bob < idOf.carol).toBe(true);
    fill(h, "bob", pruneFilesLookedMax + 500, expiredMs, "b");
    fill(h, "carol", 10, expiredMs, "c");
    alice.status();
    expect(h.inboxFiles("bob")).toHaveLength(500);
    expect(h.inboxFiles("carol")).toHaveLength(10);
    alice.status();
    expect(h.inboxFiles("carol")).toEqual([]);
    expect(h.inboxFiles("bob")).toEqual([]);
  });
});
