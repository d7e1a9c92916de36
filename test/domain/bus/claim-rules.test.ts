import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ClaimName } from "../../../src/domain/bus/bus-files.js";
import { keysConflict } from "../../../src/domain/bus/claim-paths.js";
import {
  type ClaimOwner,
  liveHolder,
  type Owners,
  planRelease,
  planClaim as planTargets,
} from "../../../src/domain/bus/claim-rules.js";

const self = { id: "me", joinToken: "t1" };
const claim = (key: string, owner = "peer", joinToken = `token-${owner}`): ClaimName => ({ key, owner, joinToken });
const owner = (state: ClaimOwner["state"], joinToken = "token-peer"): ClaimOwner => ({
  joinToken,
  label: "peer-label",
  state,
});
const owners = (entry: ClaimOwner = owner("active")) => new Map([["peer", entry]]);
/** Paths not made yet: keys alone, no identity claim. */
const planClaim = (keys: string[], me: typeof self, claims: ClaimName[], who: Owners) =>
  planTargets(
    keys.map((key) => ({ key })),
    me,
    claims,
    who,
    () => true,
  );
const mine = (key: string): ClaimName => ({ key, owner: "me", joinToken: "t1" });

describe("liveHolder", () => {
  it("names the owner of a claim whose record is active and carries its token", () => {
    expect(liveHolder(claim("a"), owners())).toEqual({ id: "peer", label: "peer-label" });
  });

  it("calls a claim an orphan when its owner's record is missing, re-tokened, gone or expired", () => {
    expect(liveHolder(claim("a"), new Map())).toBeUndefined();
    expect(liveHolder(claim("a"), owners(owner("active", "newer")))).toBeUndefined();
    expect(liveHolder(claim("a"), owners(owner("gone")))).toBeUndefined();
    expect(liveHolder(claim("a"), owners(owner("expired")))).toBeUndefined();
  });
});

describe("planClaim", () => {
  it("creates every key nobody holds", () => {
    expect(planClaim(["a", "b"], self, [], new Map())).toEqual({
      held: [],
      create: [mine("a"), mine("b")],
      reap: [],
      blocked: [],
    });
  });

  it("treats a key this membership holds as done", () => {
    const plan = planClaim(["a", "b"], self, [claim("a", "me", "t1")], new Map());
    expect(plan.held).toEqual(["a"]);
    expect(plan.create).toEqual([mine("b")]);
  });

  it("blocks on a live claim below or above a wanted key, naming the holder", () => {
    const plan = planClaim(["src/api"], self, [claim("src/api/routes.ts"), claim("src")], owners());
    expect(plan.blocked).toEqual([
      { path: "src/api", heldPath: "src/api/routes.ts", holder: { id: "peer", label: "peer-label" } },
      { path: "src/api", heldPath: "src", holder: { id: "peer", label: "peer-label" } },
    ]);
  });

  it("reaps an orphan in the way instead of blocking on it", () => {
    const plan = planClaim(["src"], self, [claim("src/x")], owners(owner("gone")));
    expect(plan.blocked).toEqual([]);
    expect(plan.reap).toEqual([claim("src/x")]);
  });

  it("reaps this session's own claim from an older membership", () => {
    const stale = claim("src/x", "me", "t0");
    expect(planClaim(["src"], self, [stale], new Map()).reap).toEqual([stale]);
  });

  it("ignores claims that do not collide", () => {
    const plan = planClaim(["src/api"], self, [claim("src/apix"), claim("lib")], owners());
    expect(plan.blocked).toEqual([]);
    expect(plan.reap).toEqual([]);
  });

  it("blocks exactly when some live claim of another session collides with a wanted key", () => {
    const key = fc.array(fc.constantFrom("a", "b"), { minLength: 1, maxLength: 3 }).map((p) => p.join("/"));
    fc.assert(
      fc.property(fc.array(key, { minLength: 1, maxLength: 3 }), fc.array(key, { maxLength: 4 }), (wanted, held) => {
        const plan = planClaim(
          wanted,
          self,
          held.map((k) => claim(k)),
          owners(),
        );
        const collides = wanted.some((w) => held.some((h) => keysConflict(w, h)));
        return plan.blocked.length > 0 === collides;
      }),
    );
  });
});

describe("planRelease", () => {
  it("removes this session's claims on the keys asked, under any of its tokens", () => {
    const own = [claim("a", "me", "t1"), claim("a", "me", "t0")];
    const plan = planRelease(["a"], "me", own, new Map());
    expect(plan.remove).toEqual(own);
    expect(plan.released).toEqual(["a"]);
  });

  it("reports a key a live session holds without touching it", () => {
    const plan = planRelease(["a"], "me", [claim("a")], owners());
    expect(plan.remove).toEqual([]);
    expect(plan.heldByOthers).toEqual([{ path: "a", holder: { id: "peer", label: "peer-label" } }]);
  });

  it("reports a key nobody holds as not claimed, and reaps an orphan on it", () => {
    const plan = planRelease(["a", "b"], "me", [claim("b")], owners(owner("gone")));
    expect(plan.notClaimed).toEqual(["a", "b"]);
    expect(plan.remove).toEqual([claim("b")]);
  });

  it("releases by exact key: a claim above the path is not released", () => {
    const plan = planRelease(["src/api"], "me", [claim("src", "me", "t1")], new Map());
    expect(plan.notClaimed).toEqual(["src/api"]);
    expect(plan.remove).toEqual([]);
  });
});
