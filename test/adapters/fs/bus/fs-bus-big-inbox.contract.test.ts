// A reader's inbox is indexed: each file's arrival is taken once, so a look at a big inbox costs
// what is new since the last one; dot-files neither fill a listing's bound nor outlive the TTL.
import { afterEach, describe, expect, it } from "vitest";
import { scanFolder } from "../../../../src/adapters/fs/bus/fs-bus-folders.js";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { messageTtlMs, pruneFilesLookedMax } from "../../../../src/domain/bus/limits.js";
import { type Backend, backends } from "../backends.js";
import { anyTime, bob, busMessage, busStore } from "./bus-fixtures.js";

const sentAtMs = 1_760_000_000_123;
const fileOf = (id: string) => `${String(sentAtMs).padStart(15, "0")}-${id}.json`;

/** The fs, counting the lstats of paths under `under`. */
function countingLstats(fs: FsLike, under: string): { fs: FsLike; lstats: () => number } {
  let lstats = 0;
  const counted = new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (key !== "lstatSync" || typeof value !== "function") return value;
      return (path: string) => {
        if (path.startsWith(under)) lstats++;
        return (value as (p: string) => unknown).call(target, path);
      };
    },
  }) as FsLike;
  return { fs: counted, lstats: () => lstats };
}

describe.each(backends)("a big inbox and dot-files on $name", ({ make }) => {
  let b: Backend | undefined;
  afterEach(() => b?.cleanup());

  it("takes each file's arrival once: a second look at an unchanged inbox lstats none of it, and order stays exact", () => {
    b = make();
    const inbox = `${b.root}/inbox/${bob}`;
    const { fs, lstats } = countingLstats(b.fs, `${inbox}/`);
    const store = busStore(b, fs);
    store.open()._unsafeUnwrap();
    const count = 300;
    for (let i = 0; i < count; i++) {
      const id = `m${String(i).padStart(4, "0")}`;
      store.deliver(busMessage(id), sentAtMs)._unsafeUnwrap();
      // Arrivals in the reverse order of the names: the order is the mtime's.
      b.raw.touch(`${inbox}/${fileOf(id)}`, 10_000_000 - i * 1_000);
    }
    const first = store.peekInbox(bob, 3, anyTime)._unsafeUnwrap();
    expect(first.entries.map((e) => e.name)).toEqual([fileOf("m0299"), fileOf("m0298"), fileOf("m0297")]);
    expect(first.files).toBe(count);
    const before = lstats();
    const again = store.peekInbox(bob, 3, anyTime)._unsafeUnwrap();
    expect(again.entries.map((e) => e.name)).toEqual(first.entries.map((e) => e.name));
    expect(lstats() - before).toBe(0);
    // Taken, then a look again: the next three, still no lstat of what was known.
    store
      .consume(
        bob,
        first.entries.map((e) => e.name),
      )
      ._unsafeUnwrap();
    const next = store.peekInbox(bob, 3, anyTime)._unsafeUnwrap();
    expect(next.entries.map((e) => e.name)).toEqual([fileOf("m0296"), fileOf("m0295"), fileOf("m0294")]);
    expect(next.files).toBe(count - 3);
    expect(lstats() - before).toBe(0);
  });

  it("never lets dot-files fill a listing's bound: they are counted apart, and every entry is still visited", () => {
    b = make();
    const folder = `${b.root}/sessions`;
    b.raw.mkdir(folder);
    for (let i = 0; i < 50; i++) b.raw.write(`${folder}/.junk-${i}`, "x");
    for (const name of ["a.json", "b.json", "c.json"]) b.raw.write(`${folder}/${name}`, "x");
    const visited: string[] = [];
    const dots: string[] = [];
    const truncated = scanFolder(
      b.fs,
      folder,
      3,
      (entry) => visited.push(entry.name),
      (entry) => dots.push(entry.name),
    )._unsafeUnwrap();
    expect(visited.sort()).toEqual(["a.json", "b.json", "c.json"]);
    expect(dots).toHaveLength(50);
    expect(truncated).toBe(false);
  });

  it("prunes dot-files past the message TTL in an inbox, sessions/ and claims/, and keeps fresh ones", () => {
    b = make();
    const store = busStore(b);
    store.open()._unsafeUnwrap();
    store.deliver(busMessage("m1"), sentAtMs)._unsafeUnwrap();
    const nowMs = 4_000_000_000_000;
    const oldMs = nowMs - messageTtlMs - 60_000;
    for (const folder of [`inbox/${bob}`, "sessions", "claims"]) {
      b.raw.write(`${b.root}/${folder}/.old`, "x");
      b.raw.touch(`${b.root}/${folder}/.old`, oldMs);
      b.raw.write(`${b.root}/${folder}/.fresh`, "x");
      b.raw.touch(`${b.root}/${folder}/.fresh`, nowMs);
    }
    store.pruneInbox(bob, nowMs - messageTtlMs, false, pruneFilesLookedMax)._unsafeUnwrap();
    store.sweepTmp(nowMs, 60 * 60_000)._unsafeUnwrap();
    for (const folder of [`inbox/${bob}`, "sessions", "claims"]) {
      expect(b.raw.exists(`${b.root}/${folder}/.old`), folder).toBe(false);
      expect(b.raw.exists(`${b.root}/${folder}/.fresh`), folder).toBe(true);
    }
  });
});
