// What `switchboard tail` follows, over the real file store on a memory file system: each piece of
// mail told once as sent and once as claimed, however many files the root holds, and nothing from
// before it started.
import { describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import { createMemoryFs, memoryFsUid } from "../../src/adapters/memory/memory-fs.js";
import { createFollower } from "../../src/cli/follow.js";
import type { Address } from "../../src/domain/mail/address.js";
import type { Envelope } from "../../src/domain/mail/envelope.js";
import type { MailStore } from "../../src/ports/mail/mail-store.js";

const addressOf = (i: number) => `0190c0c0-0000-7000-8000-${String(i).padStart(12, "0")}` as Address;

function mailRoot(): MailStore {
  const { fs } = createMemoryFs();
  const store = createFsMailStore({ fs, root: "/root/mail", uid: memoryFsUid, syncDirs: false });
  expect(store.openRoot().isOk()).toBe(true);
  return store;
}

function send(store: MailStore, to: Address, id: string, body: string): string {
  const from = addressOf(0);
  const envelope: Envelope = { id, from, to, kind: "request", hops: 0, in_reply_to: [], status: "", ts: "", body };
  expect(store.deliver(envelope, 0, { durable: false }).isOk()).toBe(true);
  const names = store.listNew(to)._unsafeUnwrap().names;
  return names[names.length - 1]!;
}

describe("tail's follower", () => {
  it("tells nothing of what was there when it started, then each new piece once as sent and once as claimed", () => {
    const store = mailRoot();
    const bee = addressOf(1);
    store.openBox(bee);
    store.claim(bee, send(store, bee, "old", "before tail"));
    const follower = createFollower(
      store,
      () => [],
      () => 0,
    );
    expect(follower.look()).toEqual([]);
    const name = send(store, bee, "m1", "\n  first line  \nsecond");
    expect(follower.look()).toEqual([
      { half: "mail", event: "sent", id: "m1", kind: "request", from: addressOf(0), to: bee, line: "first line" },
    ]);
    expect(follower.look()).toEqual([]);
    store.claim(bee, name);
    expect(follower.look().map((e) => [e.id, e.event])).toEqual([["m1", "claimed"]]);
    expect(follower.look()).toEqual([]);
  });

  it("repeats nothing with more files on the root than any count it could keep (101 inboxes of 200 read)", () => {
    const store = mailRoot();
    for (let box = 1; box <= 101; box++) {
      const to = addressOf(box);
      store.openBox(to);
      for (let i = 0; i < 200; i++) store.claim(to, send(store, to, `${box}-${i}`, "x"));
    }
    const follower = createFollower(
      store,
      () => [],
      () => 0,
    );
    expect(follower.look()).toEqual([]);
    expect(follower.look()).toEqual([]);
    send(store, addressOf(7), "new", "only this");
    expect(follower.look().map((e) => [e.id, e.event])).toEqual([["new", "sent"]]);
  });

  it("keeps of a long body only its first line, cut at 200 characters", () => {
    const store = mailRoot();
    const bee = addressOf(1);
    store.openBox(bee);
    const follower = createFollower(
      store,
      () => [],
      () => 0,
    );
    follower.look();
    send(store, bee, "long", `${"é".repeat(300)}\n${"x".repeat(100_000)}`);
    const [event] = follower.look();
    expect(event?.line).toBe("é".repeat(200));
  });
});
