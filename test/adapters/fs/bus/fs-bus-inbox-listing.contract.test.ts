// How a reader lists its own inbox: a small folder, listed small a moment ago, in one readdir (the
// listing a slice at a time costs a wake most of its time in Node's opendir); anything that may
// have grown big since, a slice per call, so a flood never makes one poll read the whole folder.
import { afterEach, describe, expect, it } from "vitest";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { inboxPassSliceMax, smallInboxEntriesMax, smallInboxPassAgeMs } from "../../../../src/domain/bus/limits.js";
import type { InboxTime } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends, nodeBackend } from "../backends.js";
import { bob, busMessage, busStore } from "./bus-fixtures.js";

const sentAtMs = 1_760_000_000_123;
const at = (nowMs: number): InboxTime => ({ nowMs, expiredBeforeMs: 0 });
const startMs = 4_000_000_000_000;
const id = (i: number) => `m${String(i).padStart(5, "0")}`;

interface Calls {
  opendir: number;
  readdir: number;
  lstat: number;
}

/** The fs, counting the listings of `folder` and the lstats of what is in it. */
function counting(fs: FsLike, folder: string): { fs: FsLike; calls: Calls } {
  const calls: Calls = { opendir: 0, readdir: 0, lstat: 0 };
  const counted = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function") return value;
      const call = (...args: unknown[]) => (value as (...a: unknown[]) => unknown).apply(target, args);
      if (key === "opendirSync" || key === "readdirSync") {
        return (path: string, ...rest: unknown[]) => {
          if (path === folder) calls[key === "opendirSync" ? "opendir" : "readdir"]++;
          return call(path, ...rest);
        };
      }
      if (key === "lstatSync") {
        return (path: string) => {
          if (path.startsWith(`${folder}/`)) calls.lstat++;
          return call(path);
        };
      }
      return value;
    },
  }) as FsLike;
  return { fs: counted, calls };
}

function setUp(make: () => Backend): { b: Backend; store: ReturnType<typeof busStore>; calls: Calls } {
  const b = make();
  const folder = `${b.root}/inbox/${bob}`;
  const { fs, calls } = counting(b.fs, folder);
  const store = busStore(b, fs);
  store.open()._unsafeUnwrap();
  return { b, store, calls };
}

function deliver(store: ReturnType<typeof busStore>, from: number, to: number): void {
  for (let i = from; i < to; i++) store.deliver(busMessage(id(i)), sentAtMs)._unsafeUnwrap();
}

const unseenIds = (store: ReturnType<typeof busStore>, nowMs: number, max = 50) =>
  store
    .peekUnseen(bob, max, new Set(), at(nowMs))
    ._unsafeUnwrap()
    .messages.map((m) => m.message.id);

describe.each(backends)("listing a reader's own inbox on $name", ({ make }) => {
  let b: Backend | undefined;
  afterEach(() => b?.cleanup());

  it("lists a small inbox listed small a moment ago in one readdir, and still finds every message in order", () => {
    const s = setUp(make);
    b = s.b;
    deliver(s.store, 0, 2);
    expect(unseenIds(s.store, startMs)).toEqual([id(0), id(1)]);
    // The first pass knew nothing of the folder: a slice at a time.
    expect(s.calls).toMatchObject({ opendir: 1, readdir: 0 });
    deliver(s.store, 2, 3);
    expect(unseenIds(s.store, startMs + 1_000)).toEqual([id(0), id(1), id(2)]);
    expect(s.calls).toMatchObject({ opendir: 1, readdir: 1 });
  });

  it("lists a slice at a time again once the last listing was big, or is old", () => {
    const s = setUp(make);
    b = s.b;
    deliver(s.store, 0, smallInboxEntriesMax + 1);
    unseenIds(s.store, startMs);
    unseenIds(s.store, startMs + 1_000);
    expect(s.calls).toMatchObject({ opendir: 2, readdir: 0 });
    s.store.consume(
      bob,
      s.store
        .peekInbox(bob, 50, at(startMs + 1_000))
        ._unsafeUnwrap()
        .entries.map((e) => e.name),
    );
    // 15 left, listed small by the next poll; the one after it comes too late for a readdir.
    unseenIds(s.store, startMs + 2_000);
    expect(s.calls.readdir).toBe(0);
    unseenIds(s.store, startMs + 2_000 + smallInboxPassAgeMs + 1);
    expect(s.calls.readdir).toBe(0);
    unseenIds(s.store, startMs + 3_000 + smallInboxPassAgeMs);
    expect(s.calls.readdir).toBe(1);
  });
});

// A folder's size grows with its entries on node's file systems (memfs keeps none).
describe("a flood into a reader's own inbox on node fs", () => {
  let b: Backend | undefined;
  afterEach(() => b?.cleanup());

  it("lists mail that flooded in after a small listing a slice per poll, never the whole folder at once", () => {
    const s = setUp(nodeBackend);
    b = s.b;
    deliver(s.store, 0, 1);
    unseenIds(s.store, startMs);
    const flood = inboxPassSliceMax + 500;
    deliver(s.store, 1, 1 + flood);
    const lstatsBefore = s.calls.lstat;
    unseenIds(s.store, startMs + 10, 1);
    expect(s.calls.readdir).toBe(0);
    expect(s.calls.lstat - lstatsBefore).toBeLessThanOrEqual(inboxPassSliceMax);
    // The next poll ends the pass: the whole flood known, the oldest first.
    expect(unseenIds(s.store, startMs + 20, 3)).toEqual([id(0), id(1), id(2)]);
    expect(s.store.inboxIds(bob, startMs + 30)._unsafeUnwrap().size).toBe(flood + 1);
  });
});
