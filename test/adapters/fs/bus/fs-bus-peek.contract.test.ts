// A peek's `max` counts messages only: files this build cannot read, however many sit in front of
// the inbox, never hide the mail behind them (found by test/stress/bus-hostile-input.test.ts).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { BusStore } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends } from "../backends.js";
import { bob, busMessage, busStore } from "./bus-fixtures.js";

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
    const peek = store.peekInbox(bob, 3)._unsafeUnwrap();
    const shown = peek.entries.map((e) => (e.kind === "message" ? e.message.id : e.name));
    expect(shown).toEqual(["first", ...junk, "m1", "m2"]);
    expect(peek.files).toBe(64);
  });
});
