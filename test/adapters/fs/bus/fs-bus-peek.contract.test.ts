// A peek's `max` counts messages only: files this build cannot read, however many sit in front of
// the inbox, never hide the mail behind them (found by test/stress/bus-hostile-input.test.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BusStore } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends } from "../backends.js";
import { anyTime, bob, busMessage, busStore } from "./bus-fixtures.js";

const sentAtMs = 1_760_000_000_123;
const fileOf = (id: string) => `${String(sentAtMs).padStart(15, "0")}-${id}.json`;

describe.each(backends)("fs bus store peek on $name", ({ make }) => {
  let b: Backend;
  let store: BusStore;

  beforeEach(() => {
    b = make();
    store = busStore(b);
    expect(store.open().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  it("walks past any number of unreadable files in front to `max` messages, naming each file it met", () => {
    const inbox = `${b.root}/inbox/${bob}`;
    store.deliver(busMessage("first"), sentAtMs);
    b.raw.touch(`${inbox}/${fileOf("first")}`, 1_000);
    const junk = Array.from({ length: 60 }, (_, i) => fileOf(`bad-${String(i).padStart(2, "0")}`));
    for (const name of junk) {
      b.raw.write(`${inbox}/${name}`, "{bad");
      b.raw.touch(`${inbox}/${name}`, 2_000);
    }
    for (const id of ["m1", "m2", "m3"]) {
      store.deliver(busMessage(id), sentAtMs);
      b.raw.touch(`${inbox}/${fileOf(id)}`, 3_000);
    }
    const peek = store.peekInbox(bob, 3, anyTime)._unsafeUnwrap();
    const shown = peek.entries.map((e) => (e.kind === "message" ? e.message.id : e.name));
    expect(shown).toEqual(["first", ...junk, "m1", "m2"]);
    expect(peek.files).toBe(64);
  });

  it("peekUnseen reads only files whose ids are not skipped, names every id on disk, and reports junk once by id", () => {
    const inbox = `${b.root}/inbox/${bob}`;
    for (const [id, mtime] of [
      ["m1", 1_000],
      ["m2", 2_000],
      ["m3", 3_000],
    ] as const) {
      store.deliver(busMessage(id), sentAtMs);
      b.raw.touch(`${inbox}/${fileOf(id)}`, mtime);
    }
    b.raw.write(`${inbox}/${fileOf("junk")}`, "{bad");
    b.raw.touch(`${inbox}/${fileOf("junk")}`, 4_000);
    // m1 was announced: it is skipped unread, so even a file that no longer parses is not read.
    b.raw.write(`${inbox}/${fileOf("m1")}`, "{now unreadable");
    b.raw.touch(`${inbox}/${fileOf("m1")}`, 1_000);
    const look = store.peekUnseen(bob, 1, new Set(["m1"]), anyTime)._unsafeUnwrap();
    expect(look.messages.map((m) => m.message.id)).toEqual(["m2"]);
    expect([...look.ids].sort()).toEqual(["junk", "m1", "m2", "m3"]);
    expect(look.unreadableIds).toEqual([]);
    const rest = store.peekUnseen(bob, 5, new Set(["m1", "m2"]), anyTime)._unsafeUnwrap();
    expect(rest.messages.map((m) => m.message.id)).toEqual(["m3"]);
    expect(rest.unreadableIds).toEqual(["junk"]);
  });
});
