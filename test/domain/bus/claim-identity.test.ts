// One file, one key: a path inside a worktree nested in this one is keyed from that worktree's top,
// an existing file is also claimed by its device and inode, and where the file system folds names
// the key is folded. Pure rules over a small fake file system.
import { describe, expect, it } from "vitest";
import { describeBusError } from "../../../src/domain/bus/bus-errors.js";
import type { ClaimName } from "../../../src/domain/bus/bus-files.js";
import { decodeClaimName, encodeClaimName } from "../../../src/domain/bus/claim-key.js";
import { type PathLookup, resolveClaimTarget } from "../../../src/domain/bus/claim-paths.js";
import { planClaim } from "../../../src/domain/bus/claim-rules.js";
import { claimNameBytesMax } from "../../../src/domain/bus/limits.js";
import type { FileIdentity, NameFolding } from "../../../src/ports/bus/real-paths.js";

const owner = "01a232e9-7f64-7000-8000-000000000001";
const joinToken = "4c1d0c51-7f64-4000-8000-00000000000a";
const exact: NameFolding = { caseFolds: false, normalizes: false };

/** Files (with an identity), folders, and `.git` entries naming git dirs; no links. */
function lookupOver(
  files: Record<string, string>,
  folders: readonly string[],
  gitDirs: Record<string, string>,
  folding: NameFolding = exact,
): PathLookup {
  const present = new Set(["/", ...folders, ...Object.keys(files)]);
  return {
    realpath: (path) => (present.has(path) ? path : undefined),
    identity: (path): FileIdentity | undefined =>
      files[path] !== undefined
        ? { id: files[path], folder: false }
        : present.has(path)
          ? { id: "1-1", folder: true }
          : undefined,
    gitDirOf: (folder) => gitDirs[folder],
    folding,
  };
}

/** A main checkout /r with a linked worktree nested at /r/nest/wt, and a submodule at /r/vendor/lib. */
const nested = lookupOver(
  { "/r/src/a.ts": "2049-11", "/r/nest/wt/src/a.ts": "2049-12", "/r/vendor/lib/x.ts": "2049-13" },
  ["/r", "/r/src", "/r/nest", "/r/nest/wt", "/r/nest/wt/src", "/r/vendor", "/r/vendor/lib"],
  {
    "/r/nest/wt": "/r/.git/worktrees/wt",
    "/r/vendor/lib": "/r/.git/modules/lib",
  },
);
const main = { root: "/r", cwd: "/r", common: "/r/.git" };

describe("a worktree nested in this one", () => {
  it("keys its paths from its own top, as a session in it does: the same file is one key", () => {
    expect(resolveClaimTarget("nest/wt/src/a.ts", main, nested)._unsafeUnwrap()).toEqual({
      key: "src/a.ts",
      identity: "2049-12",
      top: "/r/nest/wt",
    });
    const inWt = { root: "/r/nest/wt", cwd: "/r/nest/wt", common: "/r/.git" };
    expect(resolveClaimTarget("src/a.ts", inWt, nested)._unsafeUnwrap().key).toBe("src/a.ts");
  });

  it("keys a path not made yet in it from its top too", () => {
    expect(resolveClaimTarget("nest/wt/src/new/b.ts", main, nested)._unsafeUnwrap()).toEqual({ key: "src/new/b.ts" });
  });

  it("refuses its top with a sentence, and lets a folder above it be claimed as this worktree's folder", () => {
    const refused = resolveClaimTarget("nest/wt", main, nested)._unsafeUnwrapErr();
    expect(refused).toEqual({ kind: "worktree-top", given: "nest/wt" });
    expect(describeBusError(refused)).toBe(
      'path "nest/wt" is another worktree of this repository, not a path in it: claim its paths from it or through it.',
    );
    expect(resolveClaimTarget("nest", main, nested)._unsafeUnwrap()).toEqual({ key: "nest" });
  });

  it("leaves another repository's checkout inside (a submodule) keyed from this root", () => {
    expect(resolveClaimTarget("vendor/lib/x.ts", main, nested)._unsafeUnwrap().key).toBe("vendor/lib/x.ts");
  });

  it("finds the main checkout nested in a linked worktree by its .git folder, the common dir", () => {
    const lookup = lookupOver({ "/w/main/a.ts": "2049-5" }, ["/w", "/w/main"], { "/w/main": "/w/main/.git" });
    const linked = { root: "/w", cwd: "/w", common: "/w/main/.git" };
    expect(resolveClaimTarget("main/a.ts", linked, lookup)._unsafeUnwrap().key).toBe("a.ts");
  });
});

describe("identity", () => {
  it("names an existing file by device and inode, and neither a folder nor a path not made yet", () => {
    expect(resolveClaimTarget("src/a.ts", main, nested)._unsafeUnwrap()).toEqual({
      key: "src/a.ts",
      identity: "2049-11",
      top: "/r",
    });
    expect(resolveClaimTarget("src", main, nested)._unsafeUnwrap()).toEqual({ key: "src" });
    expect(resolveClaimTarget("src/b.ts", main, nested)._unsafeUnwrap()).toEqual({ key: "src/b.ts" });
  });

  it("has a name of its own that carries its path's key, and decodes back", () => {
    const claim = { key: "src/a b.ts", owner, joinToken, identity: "2049-11" };
    const name = encodeClaimName(claim)._unsafeUnwrap();
    expect(name).toBe(`#2049-11#src%2Fa%20b.ts~${owner}~${joinToken}`);
    expect(decodeClaimName(name)).toEqual(claim);
  });

  it("decodes no identity name but the canonical one, and no path key is ever spelled like one", () => {
    for (const name of [
      `#02049-11#src~${owner}~${joinToken}`,
      `#2049#src~${owner}~${joinToken}`,
      `#2049-11-3#src~${owner}~${joinToken}`,
      `#2049-11#~${owner}~${joinToken}`,
      `#2049-11##1-2#src~${owner}~${joinToken}`,
      `#2049-11src~${owner}~${joinToken}`,
    ]) {
      expect(decodeClaimName(name), name).toBeUndefined();
    }
    const hashKey = encodeClaimName({ key: "#2049-11#src", owner, joinToken })._unsafeUnwrap();
    expect(hashKey.startsWith("%23")).toBe(true);
    expect(decodeClaimName(hashKey)).toEqual({ key: "#2049-11#src", owner, joinToken });
  });

  it("is refused with its key when the identity name would pass NAME_MAX", () => {
    const key = "k".repeat(claimNameBytesMax - owner.length - joinToken.length - 2);
    expect(encodeClaimName({ key, owner, joinToken }).isOk()).toBe(true);
    expect(encodeClaimName({ key, owner, joinToken, identity: "2049-11" })._unsafeUnwrapErr().kind).toBe(
      "key-too-long",
    );
  });
});

describe("planClaim with identities", () => {
  const self = { id: "me", joinToken: "t1" };
  const live = new Map([["peer", { joinToken: "tp", label: "peer", state: "active" as const }]]);
  const holder = { id: "peer", label: "peer" };
  const peerA: ClaimName[] = [
    { key: "src/a.ts", owner: "peer", joinToken: "tp" },
    { key: "src/a.ts", owner: "peer", joinToken: "tp", identity: "2049-11" },
  ];

  it("blocks the same file under another name (a hard link), saying it is the same file", () => {
    const plan = planClaim([{ key: "src/b.ts", identity: "2049-11" }], self, peerA, live, () => true);
    expect(plan.blocked).toEqual([{ path: "src/b.ts", heldPath: "src/a.ts", holder, sameFile: true }]);
    expect(describeBusError({ kind: "claim-conflict", conflicts: plan.blocked, race: false })).toBe(
      "Nothing claimed: src/b.ts is the same file as src/a.ts, claimed by peer.",
    );
  });

  it("says a key held outright once, by its path", () => {
    const plan = planClaim([{ key: "src/a.ts", identity: "2049-11" }], self, [...peerA].reverse(), live, () => true);
    expect(plan.blocked).toEqual([{ path: "src/a.ts", heldPath: "src/a.ts", holder }]);
  });

  it("does not block on an identity its path no longer leads to (the file was replaced, its inode reused)", () => {
    const plan = planClaim([{ key: "docs/z.md", identity: "2049-11" }], self, peerA, live, () => false);
    expect(plan.blocked).toEqual([]);
    expect(plan.reap).toEqual([]);
  });

  it("reaps an identity claim left without its path claim (reaped by a claim that found its owner expired): it holds nothing", () => {
    const stray = peerA[1] as ClaimName;
    const plan = planClaim([{ key: "src/b.ts", identity: "2049-11" }], self, [stray], live, () => true);
    expect(plan.blocked).toEqual([]);
    expect(plan.reap).toEqual([stray]);
  });

  it("creates a path claim and an identity claim per existing file, and only the identity for a path held since before the file existed", () => {
    const mine = (key: string, identity?: string): ClaimName =>
      identity === undefined ? { key, owner: "me", joinToken: "t1" } : { key, owner: "me", joinToken: "t1", identity };
    const plan = planClaim(
      [
        { key: "a.ts", identity: "1-2" },
        { key: "b.ts", identity: "1-3" },
        { key: "c.ts", identity: "1-4" },
      ],
      self,
      [mine("b.ts"), mine("c.ts"), mine("c.ts", "1-4")],
      new Map(),
      () => true,
    );
    expect(plan.held).toEqual(["b.ts", "c.ts"]);
    expect(plan.create).toEqual([mine("a.ts"), mine("a.ts", "1-2"), mine("b.ts", "1-3")]);
  });
});

describe("file systems that fold names (macOS)", () => {
  const files = { "/r/src/Foo.ts": "1-7" };
  const folders = ["/r", "/r/src"];
  const at = { root: "/r", cwd: "/r", common: "/r/.git" };
  const composed = "caf\u00e9.ts";
  const decomposed = "cafe\u0301.ts";

  it("folds case and composes Unicode where names fold: Foo.ts and foo.ts not made yet are one key", () => {
    const folds = lookupOver({}, folders, {}, { caseFolds: true, normalizes: true });
    const keys = ["src/Foo.ts", "src/foo.ts", "SRC/FOO.TS"].map(
      (p) => resolveClaimTarget(p, at, folds)._unsafeUnwrap().key,
    );
    expect(new Set(keys)).toEqual(new Set(["src/foo.ts"]));
    expect(resolveClaimTarget(`src/${decomposed}`, at, folds)._unsafeUnwrap().key).toBe(`src/${composed}`);
  });

  it("composes Unicode alone where names only normalize", () => {
    const normalizes = lookupOver(files, folders, {}, { caseFolds: false, normalizes: true });
    expect(resolveClaimTarget(`src/${decomposed}`, at, normalizes)._unsafeUnwrap().key).toBe(`src/${composed}`);
    expect(resolveClaimTarget("src/Foo.ts", at, normalizes)._unsafeUnwrap().key).toBe("src/Foo.ts");
  });

  it("keeps keys byte for byte where names are exact (Linux): Foo.ts and foo.ts are two files", () => {
    const linux = lookupOver(files, folders, {});
    expect(resolveClaimTarget("src/Foo.ts", at, linux)._unsafeUnwrap().key).toBe("src/Foo.ts");
    expect(resolveClaimTarget("src/foo.ts", at, linux)._unsafeUnwrap().key).toBe("src/foo.ts");
    expect(resolveClaimTarget(`src/${decomposed}`, at, linux)._unsafeUnwrap().key).toBe(`src/${decomposed}`);
  });
});
