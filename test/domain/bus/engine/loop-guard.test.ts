// The bus's loop guard: a message carries its sender's turn hop count; a turn the bus raises counts
// one more than its mail; mail at the hop limit wakes no one, is held for the next prompt, and the
// person and the model are told why. Two sessions whose models answer every message stop there.
import { afterEach, describe, expect, it, vi } from "vitest";
import { watchPollMs } from "../../../../src/domain/bus/limits.js";
import { type BusSession, busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

const readMessage = (h: ReturnType<typeof createBusHarness>, file: string) =>
  JSON.parse(String(h.vol.readFileSync(`${busRoot}/inbox/${idOf.alice}/${file}`, "utf8")));

const inboxHops = (h: ReturnType<typeof createBusHarness>, name: "alice" | "bob") =>
  h
    .inboxFiles(name)
    .map((file) => JSON.parse(String(h.vol.readFileSync(`${busRoot}/inbox/${idOf[name]}/${file}`, "utf8"))).hops);

/** alice and bob on one bus, each waking for mail or not, under `hopLimit` (the default: 5). */
function alongside(aliceWakes: boolean, bobWakes: boolean, hopLimit?: number) {
  const h = createBusHarness();
  if (hopLimit !== undefined) h.setHopLimit(hopLimit);
  const alice = h.start("alice");
  alice.engine.join({ label: "alice", wake: aliceWakes });
  const bob = h.start("bob");
  bob.engine.join({ label: "bob", wake: bobWakes });
  return { h, alice, bob };
}

/** One raised turn of `s`: its run starts, its model answers `to` once, the run settles. */
function answer(s: BusSession, to: string): void {
  s.engine.runStarted();
  s.engine.send({ to, text: "and back to you" })._unsafeUnwrap();
  s.engine.runSettled(false);
}

describe("the bus's loop guard", () => {
  it("writes the turn's hop count on every message: 0 in a person's turn, one more than the mail that raised the turn", () => {
    const { h, alice, bob } = alongside(true, true);
    alice.engine.send({ to: "bob", text: "typed by a person" })._unsafeUnwrap();
    expect(inboxHops(h, "bob")).toEqual([0]);
    h.advance(watchPollMs);
    expect(bob.host.raised).toHaveLength(1);
    bob.engine.runStarted();
    bob.engine.send({ to: "alice", text: "answered by bob's model" })._unsafeUnwrap();
    expect(inboxHops(h, "alice")).toEqual([1]);
    bob.engine.runSettled(false);
    // A settled run, then a prompt nobody raised: the count starts again.
    bob.engine.promptStarting();
    bob.engine.send({ to: "alice", text: "typed again" })._unsafeUnwrap();
    expect(inboxHops(h, "alice")).toEqual([1, 0]);
  });

  it("stops two sessions whose models answer every message at the hop limit, and tells both why", () => {
    const { h, alice, bob } = alongside(true, true, 3);
    alice.engine.send({ to: "bob", text: "start the ping-pong" })._unsafeUnwrap();
    // Each model answers every turn the bus raises for it.
    const answered = new Map<BusSession, number>([
      [alice, 0],
      [bob, 0],
    ]);
    for (let step = 0; step < 20; step++) {
      h.advance(watchPollMs);
      for (const [s, to] of [
        [alice, "bob"],
        [bob, "alice"],
      ] as const) {
        const done = answered.get(s) ?? 0;
        if (s.host.raised.length === done) continue;
        answered.set(s, done + 1);
        answer(s, to);
      }
    }
    // hops 0 → bob (turn 1) → alice (turn 2) → bob (turn 3) → alice: 3 reaches the limit, no wake.
    expect([answered.get(bob), answered.get(alice)]).toEqual([2, 1]);
    const held = alice.host.warnings.filter((w) => w.kind === "hop-limit");
    expect(held).toEqual([{ kind: "hop-limit", fromLabels: ["bob"], hops: 3, limit: 3 }]);
    // The held mail goes with the next prompt, saying why it did not wake the session.
    const notice = alice.engine.promptStarting();
    expect(notice).toMatchObject({ delivery: "next-turn", atHopLimit: { hops: 3, limit: 3 } });
    expect(notice?.messages.map((m) => m.preview)).toEqual(["and back to you"]);
  });

  it("wakes for the mail under the limit in a burst and holds only the rest", () => {
    const { h, alice, bob } = alongside(true, false, 1);
    bob.engine.send({ to: "alice", text: "from a person" })._unsafeUnwrap();
    bob.engine.send({ to: "alice", text: "from a chain" })._unsafeUnwrap();
    // The second as a turn raised by mail would have written it: one hop, at the limit.
    const chained = h.inboxFiles("alice").find((file) => readMessage(h, file).text === "from a chain") ?? "";
    const path = `${busRoot}/inbox/${idOf.alice}/${chained}`;
    h.vol.writeFileSync(path, JSON.stringify({ ...readMessage(h, chained), hops: 1 }));
    h.advance(watchPollMs);
    expect(alice.host.raised.flatMap((n) => n.messages.map((m) => m.preview))).toEqual(["from a person"]);
    expect(alice.host.warnings).toEqual([{ kind: "hop-limit", fromLabels: ["bob"], hops: 1, limit: 1 }]);
  });

  it("reads a message without a hop count as a person's (0): files of older versions wake as before", () => {
    const { h, alice, bob } = alongside(true, false, 1);
    bob.engine.send({ to: "alice", text: "old file" })._unsafeUnwrap();
    const [file] = h.inboxFiles("alice");
    const path = `${busRoot}/inbox/${idOf.alice}/${file}`;
    const { hops: _dropped, ...older } = JSON.parse(String(h.vol.readFileSync(path, "utf8")));
    h.vol.writeFileSync(path, JSON.stringify(older));
    h.advance(watchPollMs);
    expect(alice.host.raised).toHaveLength(1);
  });
});

describe("one loop guard for both halves", () => {
  it("sends with the mailbox's count when it is higher, and tells only its own", () => {
    const { h, alice } = alongside(false, false);
    // A turn the mailbox's mail started, 2 hops in: the bus's own count is 0.
    alice.host.peerTurnHops = () => 2;
    alice.engine.send({ to: "bob", text: "from a turn mail raised" })._unsafeUnwrap();
    expect(inboxHops(h, "bob")).toEqual([2]);
    expect(alice.engine.turnHops()).toBe(0);
  });
});

describe("duplicates on the bus", () => {
  it("announces the same text sent again within the window once, with a count, and one read shows and consumes all", () => {
    const { h, alice, bob } = alongside(true, false);
    for (let i = 0; i < 4; i++) bob.engine.send({ to: "alice", text: "are you there?" })._unsafeUnwrap();
    h.advance(watchPollMs);
    expect(alice.host.raised.flatMap((n) => n.messages.map((m) => [m.preview, m.repeats ?? 1]))).toEqual([
      ["are you there?", 4],
    ]);
    const read = alice.engine.inbox(20)._unsafeUnwrap();
    expect(read.rows.map((row) => row.repeats)).toEqual([4]);
    expect(read.ids).toHaveLength(4);
    expect(h.inboxFiles("alice")).toEqual([]);
  });
});
