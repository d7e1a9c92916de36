// Thousands of crashed sessions' records beside a live one: the live one is found, its claims and its
// label held, and a prune clears the dead rows at once. (Each test failed before its fix: past 2,000
// entries in sessions/, the live record went unread, its claims were reaped as orphans and its
// label was free.)
import { afterEach, describe, expect, it, vi } from "vitest";
import { goneRowsMax } from "../../../../src/domain/bus/limits.js";
import { encodeSessionRecord } from "../../../../src/domain/bus/records.js";
import { sessionRecord } from "../fixtures.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

// Past the 2,000 entries one listing of sessions/ read before.
const deadCount = 2_500;

/** `count` records of sessions whose processes crashed, written before anything else in sessions/. */
function crashStorm(h: ReturnType<typeof createBusHarness>, count: number): void {
  const dead = h.table.spawn();
  h.table.crash(dead.pid);
  h.vol.mkdirSync(`${busRoot}/sessions`, { recursive: true, mode: 0o700 });
  for (let i = 0; i < count; i++) {
    const id = `dead-${String(i).padStart(5, "0")}`;
    const record = sessionRecord(id, { pid: dead.pid, started: dead.started ?? "1", label: `dead-${i}` });
    h.vol.writeFileSync(`${busRoot}/sessions/${id}.json`, encodeSessionRecord(record), { mode: 0o600 });
  }
}

describe("a crash storm in sessions/", () => {
  it("hides no live session: its claim holds and its label is not free", () => {
    const h = createBusHarness();
    crashStorm(h, deadCount);
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    expect(alice.claim(["src/api"]).isOk()).toBe(true);
    const bob = h.start("bob").engine;
    const taken = bob.claim(["src/api"]);
    expect(taken.isErr() && taken.error.kind).toBe("claim-conflict");
    const named = bob.join({ label: "alice" });
    expect(named.isErr() && named.error.kind).toBe("label-taken");
    expect(h.claimFiles().filter((name) => name.includes(idOf.alice))).toHaveLength(1);
  });

  it("is cleared by one status: the newest ended rows stay for the board, the rest go at once", () => {
    const h = createBusHarness();
    crashStorm(h, deadCount);
    const alice = h.start("alice").engine;
    alice.join({ label: "alice" });
    alice.status();
    const left = (h.vol.readdirSync(`${busRoot}/sessions`) as unknown[]).length;
    expect(left).toBe(goneRowsMax + 1);
    const view = alice.status()._unsafeUnwrap();
    expect(view.sessions.filter((s) => s.state === "gone")).toHaveLength(goneRowsMax);
  });
});
