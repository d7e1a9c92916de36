// The bus store's contract, continued: claims, the tmp sweep and hostile entries, on node fs and
// memfs alike; then FIFOs, on node fs only since memfs has none.
import { execFileSync } from "node:child_process";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ClaimName } from "../../../../src/domain/bus/bus-files.js";
import type { BusStore } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends, nodeBackend } from "../backends.js";
import {
  alice,
  anyTime,
  bob,
  busMessage,
  busStore,
  failingLinks,
  sessionRecord,
  snapshot,
  tokenA,
  tokenB,
} from "./bus-fixtures.js";

/** The caller's half of a claim: create, list again, back off when another holds a conflicting key. */
function claimOnce(store: BusStore, owner: string, token: string, keys: string[]): boolean {
  const conflicts = (held: ClaimName) =>
    held.owner !== owner &&
    keys.some((k) => k === held.key || k.startsWith(`${held.key}/`) || held.key.startsWith(`${k}/`));
  if (store.listClaims()._unsafeUnwrap().claims.some(conflicts)) return false;
  store.createClaims(owner, token, "x", keys)._unsafeUnwrap();
  if (!store.listClaims()._unsafeUnwrap().claims.some(conflicts)) return true;
  store.removeClaims(keys.map((key) => ({ key, owner, joinToken: token })))._unsafeUnwrap();
  return false;
}

describe.each(backends)("fs bus store claims on $name", ({ make }) => {
  let b: Backend;
  let store: BusStore;
  const at = (sub: string) => `${b.root}/${sub}`;

  beforeEach(() => {
    b = make();
    store = busStore(b);
    expect(store.open().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  it("creates one 0600 file per key, named <encoded key>~<owner>~<token>, and lists them from the names alone", () => {
    expect(store.createClaims(alice, tokenA, "billing-core", ["src/api", ".github/ci.yml"]).isOk()).toBe(true);
    expect(b.raw.list(at("claims"))).toEqual([`%2Egithub%2Fci.yml~${alice}~${tokenA}`, `src%2Fapi~${alice}~${tokenA}`]);
    expect(b.raw.mode(at(`claims/src%2Fapi~${alice}~${tokenA}`))).toBe(0o600);
    expect(b.raw.list(at("tmp"))).toEqual([]);
    const listing = store.listClaims()._unsafeUnwrap();
    expect(listing.claims).toHaveLength(2);
    expect(listing.claims).toContainEqual({ key: "src/api", owner: alice, joinToken: tokenA });
    expect(listing.ignored).toBe(0);
  });

  it("counts as ignored the entries of claims/ that are not claims: dot-files, bad names, folders, links", () => {
    store.createClaims(alice, tokenA, "a", ["README.md"]);
    b.raw.write(at("claims/.draft"), "x");
    b.raw.write(at("claims/no-separators"), "x");
    b.raw.write(at(`claims/src%2fapi~${alice}~${tokenA}`), "x");
    b.raw.write(at(`claims/%2E~${alice}~${tokenA}`), "x");
    b.raw.mkdir(at(`claims/lib~${alice}~${tokenA}`));
    b.raw.symlink(b.outside, at(`claims/docs~${alice}~${tokenA}`));
    const listing = store.listClaims()._unsafeUnwrap();
    expect(listing.claims).toEqual([{ key: "README.md", owner: alice, joinToken: tokenA }]);
    // The dot-file is skipped before it is counted.
    expect(listing.ignored).toBe(5);
  });

  it("makes a claim made again under the same token a no-op that a later failure does not undo", () => {
    store.createClaims(alice, tokenA, "a", ["src/api"]);
    expect(store.createClaims(alice, tokenA, "a", ["src/api", "src/db"]).isOk()).toBe(true);
    const failing = busStore(b, failingLinks(b.fs, 2));
    expect(failing.createClaims(alice, tokenA, "a", ["src/api", "src/web"]).isErr()).toBe(true);
    expect(
      store
        .listClaims()
        ._unsafeUnwrap()
        .claims.map((c) => c.key)
        .sort(),
    ).toEqual(["src/api", "src/db"]);
  });

  it.each([1, 2, 3])("creates all or none: a failed link number %i removes the links the call made", (k) => {
    store.createClaims(bob, tokenB, "b", ["held/by-bob"]);
    const failing = busStore(b, failingLinks(b.fs, k));
    const made = failing.createClaims(alice, tokenA, "a", ["a", "b/c", "d"]);
    expect(made._unsafeUnwrapErr()).toMatchObject({ kind: "io", op: "link", code: "EIO" });
    expect(store.listClaims()._unsafeUnwrap().claims).toEqual([{ key: "held/by-bob", owner: bob, joinToken: tokenB }]);
    expect(b.raw.list(at("tmp"))).toEqual([]);
  });

  it("refuses a key too long for a file name as ENAMETOOLONG, and creates none of the call's claims", () => {
    const long = `src/${"x/".repeat(100)}end.ts`;
    expect(store.createClaims(alice, tokenA, "a", ["ok.ts", long])._unsafeUnwrapErr()).toMatchObject({
      code: "ENAMETOOLONG",
    });
    expect(store.createClaims(alice, tokenA, "a", ["../out"])._unsafeUnwrapErr()).toMatchObject({ code: "EINVAL" });
    expect(b.raw.list(at("claims"))).toEqual([]);
  });

  it("removes the given claims, counts one already gone as removed, and leaves every other", () => {
    store.createClaims(alice, tokenA, "a", ["a", "b"]);
    store.createClaims(bob, tokenB, "b", ["a"]);
    const gone = { key: "never", owner: alice, joinToken: tokenA };
    expect(store.removeClaims([{ key: "a", owner: alice, joinToken: tokenA }, gone]).isOk()).toBe(true);
    expect(
      store
        .listClaims()
        ._unsafeUnwrap()
        .claims.map((c) => `${c.key}:${c.owner}`)
        .sort(),
    ).toEqual([`a:${bob}`, `b:${alice}`]);
  });

  it("lets exactly one of two sessions claiming one key hold it, the second seeing the first", () => {
    const other = busStore(b);
    expect(claimOnce(store, alice, tokenA, ["src/api"])).toBe(true);
    expect(claimOnce(other, bob, tokenB, ["src/api/routes.ts"])).toBe(false);
    expect(claimOnce(other, bob, tokenB, ["src/api"])).toBe(false);
    expect(
      store
        .listClaims()
        ._unsafeUnwrap()
        .claims.map((c) => c.owner),
    ).toEqual([alice]);
  });

  it("never lets two sessions both hold conflicting keys when their creates interleave", () => {
    const other = busStore(b);
    store.createClaims(alice, tokenA, "a", ["src/api"]);
    other.createClaims(bob, tokenB, "b", ["src/api/routes.ts"]);
    // Each lists again after both created: whoever sees the other backs off.
    const backsOff = (s: BusStore, owner: string, token: string, key: string) => {
      const seen = s
        .listClaims()
        ._unsafeUnwrap()
        .claims.some((c) => c.owner !== owner);
      if (seen) s.removeClaims([{ key, owner, joinToken: token }])._unsafeUnwrap();
      return seen;
    };
    const aliceHolds = !backsOff(store, alice, tokenA, "src/api");
    const bobHolds = !backsOff(other, bob, tokenB, "src/api/routes.ts");
    expect(aliceHolds && bobHolds).toBe(false);
    expect(
      new Set(
        store
          .listClaims()
          ._unsafeUnwrap()
          .claims.map((c) => c.owner),
      ).size,
    ).toBeLessThanOrEqual(1);
  });

  it("sweeps old files and links out of tmp/ (never their targets), keeps fresh ones, and puts back a stranded inbox", () => {
    const nowMs = Date.now() + 120_000;
    b.raw.write(at("tmp/claim~old.json"), "x");
    b.raw.touch(at("tmp/claim~old.json"), 1_000);
    b.raw.write(at("tmp/claim~fresh.json"), "x");
    b.raw.touch(at("tmp/claim~fresh.json"), nowMs);
    b.raw.write(`${b.outside}/target`, "keep");
    b.raw.symlink(`${b.outside}/target`, at("tmp/link"));
    // A prune killed after moving a non-empty inbox aside.
    b.raw.mkdir(at(`tmp/inbox~${bob}~dead`));
    b.raw.write(at(`tmp/inbox~${bob}~dead/001-m1.json`), JSON.stringify(busMessage("m1")));
    b.raw.touch(at(`tmp/inbox~${bob}~dead`), 1_000);
    expect(store.sweepTmp(nowMs, 60_000)._unsafeUnwrap()).toBe(3);
    expect(b.raw.list(at("tmp"))).toEqual(["claim~fresh.json"]);
    expect(b.raw.list(at(`inbox/${bob}`))).toEqual(["001-m1.json"]);
    expect(b.raw.read(`${b.outside}/target`)).toBe("keep");
  });

  it("writes and reads nothing outside the bus folder through links planted in each of its folders", () => {
    b.raw.write(`${b.outside}/${alice}.json`, JSON.stringify(sessionRecord(alice)));
    const before = snapshot(b, b.outside);
    for (const folder of ["sessions", "claims", "tmp"]) b.raw.symlink(b.outside, at(`${folder}/in-${folder}`));
    b.raw.symlink(`${b.outside}/${alice}.json`, at(`sessions/${alice}.json`));
    b.raw.symlink(b.outside, at(`inbox/${bob}`));
    expect(store.readRecord(alice)._unsafeUnwrap()).toBeUndefined();
    expect(store.writeRecord(sessionRecord(bob)).isOk()).toBe(true);
    expect(store.removeRecord(alice, tokenA).isOk()).toBe(true);
    expect(store.createClaims(alice, tokenA, "a", ["x"]).isOk()).toBe(true);
    expect(store.deliver(busMessage("m1"), 1).isErr()).toBe(true);
    expect(store.pruneInbox(bob, Number.MAX_SAFE_INTEGER, true, 1).isErr()).toBe(true);
    expect(store.sweepTmp(Number.MAX_SAFE_INTEGER, 0).isOk()).toBe(true);
    expect(snapshot(b, b.outside)).toEqual(before);
  });

  it("refuses every call on a claims/ or tmp/ swapped for a link", () => {
    b.raw.rmTree(at("claims"));
    b.raw.symlink(b.outside, at("claims"));
    expect(store.listClaims()._unsafeUnwrapErr().kind).toBe("not-a-folder");
    expect(store.createClaims(alice, tokenA, "a", ["x"])._unsafeUnwrapErr().kind).toBe("not-a-folder");
    b.raw.rmTree(at("tmp"));
    b.raw.symlink(b.outside, at("tmp"));
    expect(store.writeRecord(sessionRecord(alice))._unsafeUnwrapErr().kind).toBe("not-a-folder");
    expect(b.raw.list(b.outside)).toEqual([]);
  });
});

describe("fs bus store on node fs: FIFOs", () => {
  let b: Backend;
  let store: BusStore;
  const at = (sub: string) => `${b.root}/${sub}`;

  beforeEach(() => {
    b = nodeBackend();
    store = busStore(b);
    expect(store.open().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  it("never blocks on a FIFO in sessions/, an inbox or claims/, and reads none as data", () => {
    store.deliver(busMessage("m1"), 1);
    execFileSync("mkfifo", [
      at(`sessions/${alice}.json`),
      at(`inbox/${bob}/000000000000002-m2.json`),
      at(`claims/a~${alice}~${tokenA}`),
    ]);
    expect(store.readRecord(alice)._unsafeUnwrap()).toBeUndefined();
    expect(store.listRecords()._unsafeUnwrap().unreadable).toMatchObject([
      { name: `${alice}.json`, reason: "not-a-file" },
    ]);
    const peek = store.peekInbox(bob, 50, anyTime)._unsafeUnwrap();
    expect(peek.files).toBe(1);
    expect(peek.entries.map((e) => e.name)).toEqual(["000000000000001-m1.json"]);
    expect(store.listClaims()._unsafeUnwrap()).toEqual({ claims: [], marks: [], ignored: 1, truncated: false });
  });
});
