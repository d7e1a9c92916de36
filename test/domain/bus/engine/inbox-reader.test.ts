// One reader per session id, mail taken only once the session recorded it, and expired mail never
// returned: the inbox read's rules, over the real fs store on memfs.
import { afterEach, describe, expect, it, vi } from "vitest";
import { messageTtlMs } from "../../../../src/domain/bus/limits.js";
import { type BusHarness, type BusSession, busRoot, createBusHarness, idOf, startMs } from "./harness.js";

afterEach(() => {
  vi.useRealTimers();
});

/** A host that keeps a transcript as Pi does: an inbox result's ids are recorded once it returns. */
function recording(session: BusSession): { transcript: Set<string>; read: (limit?: number) => string[] } {
  const transcript = new Set<string>();
  session.host.recorded = (ids) => new Set(ids.filter((id) => transcript.has(id)));
  return {
    transcript,
    read(limit) {
      const result = session.engine.inbox(limit)._unsafeUnwrap();
      return result.rows.map((row) => row.message.text);
    },
  };
}

function twoSessions(): { h: BusHarness; alice: BusSession; bob: BusSession } {
  const h = createBusHarness();
  const alice = h.start("alice");
  alice.engine.join({ label: "alice", listen: false });
  const bob = h.start("bob");
  bob.engine.join({ label: "bob", listen: false });
  return { h, alice, bob };
}

const send = (from: BusSession, text: string) => from.engine.send({ to: "bob", text })._unsafeUnwrap();

describe("expired mail", () => {
  it("is never returned by inbox, though no prune has run yet", () => {
    const { h, alice, bob } = twoSessions();
    send(alice, "old");
    // Arrived a day and a second ago: past the TTL, and no status has pruned it.
    const [old] = h.inboxFiles("bob");
    const arrivedS = (startMs - messageTtlMs - 1_000) / 1_000;
    h.vol.utimesSync(`${busRoot}/inbox/${idOf.bob}/${old}`, arrivedS, arrivedS);
    h.advance(1);
    send(alice, "new");
    const read = bob.engine.inbox(undefined)._unsafeUnwrap();
    expect(read.rows.map((row) => row.message.text)).toEqual(["new"]);
    expect(read.more).toBe(0);
  });
});

describe("one reader per session id", () => {
  it("refuses the older twin's read once a newer process joined, and its next inbox does not take the record back", () => {
    const { h, alice } = twoSessions();
    const older = h.session("bob");
    const newer = h.start("carol", { idOf: "bob" });
    newer.engine.join({ label: "bob", listen: false });
    send(alice, "one");
    expect(older.engine.inbox(undefined)._unsafeUnwrapErr()).toMatchObject({ kind: "displaced", pid: newer.pid });
    expect(older.host.warnings).toContainEqual({ kind: "displaced", pid: newer.pid });
    expect(older.engine.inbox(undefined)._unsafeUnwrapErr()).toMatchObject({ kind: "displaced" });
    expect(h.record("bob")?.pid).toBe(newer.pid);
    expect(
      newer.engine
        .inbox(undefined)
        ._unsafeUnwrap()
        .rows.map((r) => r.message.text),
    ).toEqual(["one"]);
    // Only an explicit join takes the bus back.
    older.engine.join({ label: "bob", listen: false })._unsafeUnwrap();
    expect(h.record("bob")?.pid).toBe(older.pid);
  });
});

describe("mail taken only once the session recorded it", () => {
  it("sets shown mail aside, deletes it once recorded, and puts back what a killed reader never recorded", () => {
    const { h, alice, bob } = twoSessions();
    for (const text of ["m1", "m2", "m3"]) {
      send(alice, text);
      h.advance(1);
    }
    const first = recording(bob);
    expect(first.read(2)).toEqual(["m1", "m2"]);
    // Not in the inbox any more, not deleted either: the process dies before Pi recorded the result.
    expect(h.inboxFiles("bob").filter((n) => !n.startsWith("."))).toHaveLength(1);
    expect(h.vol.readdirSync(`${busRoot}/inbox/${idOf.bob}/.shown`)).toHaveLength(2);
    h.crash("bob");
    const again = h.start("bob", { idOf: "bob" });
    again.engine.join({ label: "bob", listen: false });
    const second = recording(again);
    // Back in place, oldest first, ahead of m3.
    expect(second.read(2)).toEqual(["m1", "m2"]);
    for (const row of again.engine.peek(5)._unsafeUnwrap().entries) expect(row.kind).toBe("message");
    // Recorded this time: the next read deletes them and shows only what is left.
    for (const text of ["m1", "m2"]) second.transcript.add(idFor(h, text));
    expect(second.read()).toEqual(["m3"]);
    expect(h.vol.readdirSync(`${busRoot}/inbox/${idOf.bob}/.shown`)).toHaveLength(1);
  });
});

/** The message id of the mail with `text` (ids are the file names' ends). */
function idFor(h: BusHarness, text: string): string {
  for (const folder of [`${busRoot}/inbox/${idOf.bob}`, `${busRoot}/inbox/${idOf.bob}/.shown`]) {
    for (const name of h.vol.readdirSync(folder) as string[]) {
      const path = `${folder}/${name}`;
      if (!h.vol.statSync(path).isFile()) continue;
      const message = JSON.parse(String(h.vol.readFileSync(path))) as { id: string; text: string };
      if (message.text === text) return message.id;
    }
  }
  throw new Error(`no mail ${text}`);
}
