// The bus store's paged listing of claims/, on node fs and memfs alike: pages of at most
// claimsPageEntriesMax entries over one folder handle, which together are listClaims' listing,
// under the same bounds; a listing given up closes its folder.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import type { ClaimName } from "../../../../src/domain/bus/bus-files.js";
import { claimsListedMax, claimsPageEntriesMax } from "../../../../src/domain/bus/limits.js";
import type { BusStore, ClaimListing, ClaimPages } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends } from "../backends.js";
import { alice, bob, busStore, tokenA, tokenB } from "./bus-fixtures.js";

/** Counts the entries read from claims/ and the folder handles opened and closed on it. */
function counting(b: Backend) {
  const counts = { entries: 0, opened: 0, closed: 0 };
  const fs: FsLike = {
    ...b.fs,
    opendirSync(path: string) {
      const dir = b.fs.opendirSync(path);
      if (!path.endsWith("/claims")) return dir;
      counts.opened++;
      return {
        readSync() {
          counts.entries++;
          return dir.readSync();
        },
        closeSync() {
          counts.closed++;
          dir.closeSync();
        },
      } as typeof dir;
    },
  };
  return { counts, store: busStore(b, fs) };
}

/** Every page to the last: the entries each read, the claims each gave, and the whole listing. */
function allPages(pages: ClaimPages, counts: { entries: number }) {
  const perPage: number[] = [];
  const claims: ClaimName[] = [];
  for (;;) {
    const before = counts.entries;
    const page = pages.next()._unsafeUnwrap();
    perPage.push(counts.entries - before);
    claims.push(...page.claims);
    if (page.whole !== undefined) return { perPage, claims, whole: page.whole };
    if (perPage.length > 1_000) throw new Error("the listing never ended");
  }
}

const sortedListing = (listing: ClaimListing) => ({
  ...listing,
  claims: [...listing.claims].sort((a, b) => a.key.localeCompare(b.key) || a.owner.localeCompare(b.owner)),
  marks: [...listing.marks].sort((a, b) => a.key.localeCompare(b.key)),
});

describe.each(backends)("fs bus store paged claims on $name", ({ make }) => {
  let b: Backend;
  let store: BusStore;
  const at = (sub: string) => `${b.root}/${sub}`;

  beforeEach(() => {
    b = make();
    store = busStore(b);
    expect(store.open().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  it("lists claims/ in pages of at most claimsPageEntriesMax entries that together are listClaims' listing", () => {
    const keys = (prefix: string, n: number) => Array.from({ length: n }, (_, k) => `${prefix}/f${k}.ts`);
    for (let from = 0; from < 5_000; from += 1_000) {
      store.createClaims(alice, tokenA, "a", keys(`a${from}`, 1_000))._unsafeUnwrap();
    }
    store.createClaims(bob, tokenB, "b", keys("observed", 10), [], true)._unsafeUnwrap();
    for (let k = 0; k < 30; k++) b.raw.write(at(`claims/.dot-${k}`), "");
    b.raw.write(at("claims/not-a-claim"), "");
    const { counts, store: paged } = counting(b);

    const { perPage, claims, whole } = allPages(paged.pageClaims()._unsafeUnwrap(), counts);

    expect(Math.max(...perPage)).toBeLessThanOrEqual(claimsPageEntriesMax);
    expect(perPage.length).toBeGreaterThanOrEqual(5_000 / claimsPageEntriesMax);
    expect(counts.closed).toBe(counts.opened);
    expect(claims).toEqual(whole.claims);
    expect(whole.claims).toHaveLength(5_010);
    expect(whole.marks).toHaveLength(10);
    expect(sortedListing(whole)).toEqual(sortedListing(store.listClaims()._unsafeUnwrap()));
  });

  it("stops at claimsListedMax entries and says so, as listClaims does", () => {
    for (let k = 0; k <= claimsListedMax; k++) b.raw.write(at(`claims/k${k}~${alice}~${tokenA}`), "");
    const { counts, store: paged } = counting(b);
    const { perPage, whole } = allPages(paged.pageClaims()._unsafeUnwrap(), counts);
    expect(Math.max(...perPage)).toBeLessThanOrEqual(claimsPageEntriesMax);
    expect(whole.claims).toHaveLength(claimsListedMax);
    expect(whole.truncated).toBe(true);
    expect(store.listClaims()._unsafeUnwrap().truncated).toBe(true);
  });

  it("gives an empty listing in one page when claims/ is missing", () => {
    b.raw.rmTree(at("claims"));
    const page = store.pageClaims()._unsafeUnwrap().next()._unsafeUnwrap();
    expect(page).toEqual({ claims: [], marks: [], whole: { claims: [], marks: [], ignored: 0, truncated: false } });
  });

  it("closes the folder when a listing is given up, and says what it read was not all", () => {
    for (let k = 0; k < 2 * claimsPageEntriesMax; k++) b.raw.write(at(`claims/k${k}~${alice}~${tokenA}`), "");
    const { counts, store: paged } = counting(b);
    const pages = paged.pageClaims()._unsafeUnwrap();
    expect(pages.next()._unsafeUnwrap().whole).toBeUndefined();
    pages.close();
    pages.close();
    expect(counts).toEqual({ entries: claimsPageEntriesMax, opened: 1, closed: 1 });
    const after = pages.next()._unsafeUnwrap();
    expect(after.whole?.claims).toHaveLength(claimsPageEntriesMax);
    expect(after.whole?.truncated).toBe(true);
  });
});
