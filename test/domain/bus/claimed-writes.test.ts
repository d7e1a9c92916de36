// The comparison of two looks at claimed files: each change a command can make to a file is named,
// and only what both looks saw is compared (an entry the bound left unchecked is never a write).
import { describe, expect, it } from "vitest";
import {
  type ClaimLook,
  claimedWrites,
  type PathState,
  type WatchLook,
} from "../../../src/domain/bus/claimed-writes.js";

const lead = { id: "01a232e9-7f64-7000-8000-00000000a11c", label: "lead" };
const bob = { id: "01a232e9-809c-7000-8000-000000000b0b", label: "bob" };
const file = (ino: number, size = 10, mtimeMs = 1_000) => ({ ino, size, mtimeMs });

const watch = (...claims: ClaimLook[]): WatchLook => ({ claims, uncheckedFiles: 0 });
const claim = (key: string, paths: Record<string, PathState>, holder = lead): ClaimLook => ({
  key,
  holder,
  paths: new Map(Object.entries(paths)),
});
const changes = (before: WatchLook, after: WatchLook) =>
  claimedWrites(before, after).map((w) => `${w.change} ${w.path} (${w.key}, ${w.holder.label})`);

describe("claimed writes", () => {
  it("names a file made, removed, resized, re-stamped or replaced, and not one left alone", () => {
    const before = watch(
      claim("src", {
        "/r/src": "folder",
        "/r/src/gone.ts": file(1),
        "/r/src/grown.ts": file(2),
        "/r/src/touched.ts": file(3),
        "/r/src/swapped.ts": file(4),
        "/r/src/same.ts": file(5),
      }),
    );
    const after = watch(
      claim("src", {
        "/r/src": "folder",
        "/r/src/grown.ts": file(2, 11),
        "/r/src/touched.ts": file(3, 10, 1_000.5),
        "/r/src/swapped.ts": file(9),
        "/r/src/same.ts": file(5),
        "/r/src/new.ts": file(8),
      }),
    );
    expect(changes(before, after)).toEqual([
      "removed /r/src/gone.ts (src, lead)",
      "changed /r/src/grown.ts (src, lead)",
      "made /r/src/new.ts (src, lead)",
      "changed /r/src/swapped.ts (src, lead)",
      "changed /r/src/touched.ts (src, lead)",
    ]);
  });

  it("knows a path no look recorded by the folder above it: absent there, so made when it appears", () => {
    const before = watch(claim("gen", { "/r/gen": "absent" }), claim("a.ts", { "/r/a.ts": "absent" }, bob));
    const after = watch(
      claim("gen", { "/r/gen": "folder", "/r/gen/out": "folder", "/r/gen/out/x.js": file(1) }),
      claim("a.ts", { "/r/a.ts": file(2) }, bob),
    );
    expect(changes(before, after)).toEqual(["made /r/a.ts (a.ts, bob)", "made /r/gen/out/x.js (gen, lead)"]);
    // A folder that became a file: its files are removed, and the file is made.
    const folded = watch(claim("gen", { "/r/gen": file(3) }));
    expect(changes(after, folded)).toEqual(["made /r/gen (gen, lead)", "removed /r/gen/out/x.js (gen, lead)"]);
  });

  it("names nothing either look left unchecked, nor anything below it", () => {
    const before = watch(
      claim("big", { "/r/big": "folder", "/r/big/a": file(1), "/r/big/b": "unchecked", "/r/big/d": "unchecked" }),
    );
    const after = watch(
      claim("big", { "/r/big": "folder", "/r/big/0": file(7), "/r/big/a": "unchecked", "/r/big/b": "unchecked" }),
    );
    // 0 was not in the first listing (made); a and d each went unseen by one look; b by both.
    expect(changes(before, after)).toEqual(["made /r/big/0 (big, lead)"]);
    const deep = watch(claim("big", { "/r/big": "unchecked" }));
    expect(changes(deep, watch(claim("big", { "/r/big": "folder", "/r/big/x/y": file(1) })))).toEqual([]);
  });
});
