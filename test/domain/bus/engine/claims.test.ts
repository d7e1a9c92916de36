import { afterEach, describe, expect, it, vi } from "vitest";
import { describeBusError } from "../../../../src/domain/bus/bus-errors.js";
import { claimsListedMax, sessionTtlMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf } from "./harness.js";

afterEach(() => vi.useRealTimers());

function twoSessions() {
  const h = createBusHarness();
  const alice = h.start("alice");
  alice.engine.join({ label: "alice" });
  const bob = h.start("bob");
  bob.engine.join({ label: "bob" });
  return { h, alice: alice.engine, bob: bob.engine };
}

describe("claim", () => {
  it("claims repository-relative keys and reports them", () => {
    const { h, alice } = twoSessions();
    expect(alice.claim(["src/api", "README.md"])._unsafeUnwrap()).toEqual({
      claimed: ["src/api", "README.md"],
      alreadyHeld: [],
    });
    // The folder by its path; the existing file by its path and by its device and inode.
    expect(h.claimFiles()).toHaveLength(3);
    expect(h.claimFiles().filter((name) => /^#[0-9]+-[0-9]+#README\.md~/.test(name))).toHaveLength(1);
  });

  it("claims and releases nothing while claims/ holds more than one listing reads: a colliding claim could be past it", () => {
    const { h, alice, bob } = twoSessions();
    alice.claim(["src/api"]);
    for (let i = 0; i < claimsListedMax; i++) h.vol.writeFileSync(`${busRoot}/claims/junk-${i}`, "");
    const refused = bob.claim(["src/api/routes.ts"])._unsafeUnwrapErr();
    expect(refused).toEqual({ kind: "claims-unlisted", entriesMax: claimsListedMax });
    expect(describeBusError(refused)).toMatch(/^The bus's claims\/ folder holds more than 20,000 entries/);
    expect(alice.release(["src/api"])._unsafeUnwrapErr().kind).toBe("claims-unlisted");
    expect(h.claimFiles().filter((name) => !name.startsWith("junk-"))).toHaveLength(1);
  });

  it("refuses a path below or above a live session's claim, naming the holder, and claims nothing", () => {
    const { h, alice, bob } = twoSessions();
    alice.claim(["src/api"]);
    for (const path of ["src/api/routes.ts", "src", "src/api"]) {
      const refusal = bob.claim(["README.md", path])._unsafeUnwrapErr();
      expect(refusal).toMatchObject({ kind: "claim-conflict", race: false });
      expect(refusal.kind === "claim-conflict" && refusal.conflicts[0]?.holder).toEqual({
        id: idOf.alice,
        label: "alice",
      });
    }
    expect(h.claimFiles()).toHaveLength(1);
  });

  it("treats a key it already holds as done", () => {
    const { alice } = twoSessions();
    alice.claim(["src"]);
    expect(alice.claim(["src", "README.md"])._unsafeUnwrap()).toEqual({
      claimed: ["src", "README.md"],
      alreadyHeld: ["src"],
    });
  });

  it("keys a link and its target as one claim", () => {
    const { alice, bob } = twoSessions();
    alice.claim(["src-link/api"]);
    expect(bob.claim(["src/api"])._unsafeUnwrapErr().kind).toBe("claim-conflict");
  });

  it("refuses the repository root and a path outside with nothing written", () => {
    const { h, alice } = twoSessions();
    expect(alice.claim(["."])._unsafeUnwrapErr()).toEqual({ kind: "repository-root", given: "." });
    expect(alice.claim(["src", "../etc"])._unsafeUnwrapErr()).toEqual({ kind: "outside-repository", given: "../etc" });
    expect(h.claimFiles()).toEqual([]);
  });

  it("claims the cwd with `.` below the root", () => {
    const h = createBusHarness();
    const alice = h.start("alice", { cwd: "/repo/src/api" }).engine;
    expect(alice.claim(["."])._unsafeUnwrap().claimed).toEqual(["src/api"]);
  });

  it("refuses a call with no paths", () => {
    const { alice } = twoSessions();
    expect(alice.claim([])._unsafeUnwrapErr()).toEqual({ kind: "missing", field: "paths" });
  });

  it("takes over a path whose holder's process died, reaping the orphan", () => {
    const { h, alice, bob } = twoSessions();
    alice.claim(["src/api"]);
    h.crash("alice");
    expect(bob.claim(["src"]).isOk()).toBe(true);
    expect(h.claimFiles().some((name) => name.includes(idOf.alice))).toBe(false);
  });

  it("keeps a hung holder's path until the session TTL, then frees it", () => {
    const { h, alice, bob } = twoSessions();
    alice.claim(["src/api"]);
    h.crash("alice");
    h.table.reuse(h.session("alice").pid);
    h.table.setUnknown(h.session("alice").pid, true);
    expect(bob.claim(["src/api"]).isErr()).toBe(true);
    h.advance(sessionTtlMs + 1);
    expect(bob.claim(["src/api"]).isOk()).toBe(true);
  });

  it("backs off when another session claims a colliding path at the same moment: never two holders", () => {
    const h = createBusHarness();
    let interleaved = false;
    const bob = h.start("bob");
    bob.engine.claim(["README.md"]);
    // Bob's whole claim runs right after Alice's first listing of claims/, before she creates hers
    // (a small folder is listed in one readdir, a big one through opendir).
    const alice = h.start("alice", {
      wrapFs: (fs) => ({
        ...fs,
        readdirSync: ((path: string, options: unknown) => {
          const listed = (fs.readdirSync as (p: string, o: unknown) => unknown)(path, options);
          if (path === `${busRoot}/claims` && !interleaved && h.record("alice") !== undefined) {
            interleaved = true;
            expect(bob.engine.claim(["src/api/routes.ts"]).isOk()).toBe(true);
          }
          return listed;
        }) as typeof fs.readdirSync,
        opendirSync(path: string) {
          const dir = fs.opendirSync(path);
          if (path !== `${busRoot}/claims` || interleaved || h.record("alice") === undefined) return dir;
          return {
            readSync: () => dir.readSync(),
            closeSync() {
              dir.closeSync();
              interleaved = true;
              expect(bob.engine.claim(["src/api/routes.ts"]).isOk()).toBe(true);
            },
          };
        },
      }),
    });
    alice.engine.join({ label: "alice" });
    const refusal = alice.engine.claim(["src/api"])._unsafeUnwrapErr();
    expect(interleaved).toBe(true);
    expect(refusal).toMatchObject({ kind: "claim-conflict", race: true });
    // README.md and src/api/routes.ts, each by path and by identity.
    expect(h.claimFiles()).toHaveLength(4);
    expect(h.claimFiles().every((name) => name.includes(idOf.bob))).toBe(true);
  });
});

describe("release", () => {
  it("removes its own claims and reports the rest", () => {
    const { h, alice, bob } = twoSessions();
    alice.claim(["src/api"]);
    bob.claim(["README.md"]);
    expect(alice.release(["src/api", "README.md", "src"])._unsafeUnwrap()).toEqual({
      released: ["src/api"],
      notClaimed: ["src"],
      heldByOthers: [{ path: "README.md", holder: { id: idOf.bob, label: "bob" } }],
    });
    expect(h.claimFiles()).toHaveLength(2);
    expect(h.claimFiles().every((name) => name.includes(idOf.bob))).toBe(true);
  });

  it("resolves its paths like a claim", () => {
    const { alice } = twoSessions();
    alice.claim(["src/api"]);
    expect(alice.release(["src-link/api"])._unsafeUnwrap().released).toEqual(["src/api"]);
  });
});
