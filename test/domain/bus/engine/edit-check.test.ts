import { afterEach, describe, expect, it, vi } from "vitest";
import { describeBusError } from "../../../../src/domain/bus/bus-errors.js";
import { claimsListedMax, observedLapseMs, sessionTtlMs } from "../../../../src/domain/bus/limits.js";
import { busRoot, createBusHarness, idOf, repo } from "./harness.js";

afterEach(() => vi.useRealTimers());

function lead() {
  const h = createBusHarness();
  const alice = h.start("alice");
  alice.engine.join({ label: "lead" });
  return { h, alice: alice.engine };
}

const marks = (names: string[]) => names.filter((name) => name.startsWith("!"));

describe("the edit check", () => {
  it("blocks a path a live peer holds, or a file below a folder it holds, for a joined and an unjoined editor", () => {
    const { h, alice } = lead();
    alice.claim(["src/api/routes.ts", "docs"]);
    const joined = h.start("bob");
    joined.engine.join({ label: "bob" });
    const unjoined = h.start("carol").engine;
    for (const editor of [joined.engine, unjoined]) {
      for (const path of ["src/api/routes.ts", `${repo}/src/api/routes.ts`, "src-link/api/routes.ts", "docs/new.md"]) {
        const verdict = editor.checkEdit(path)._unsafeUnwrap();
        expect(verdict.kind).toBe("held");
        expect(verdict.kind === "held" && verdict.conflict.holder).toEqual({ id: idOf.alice, label: "lead" });
      }
    }
    // Checking is a read: the unjoined editor is still off the bus, and nothing was written.
    expect(h.record("carol")).toBeUndefined();
    expect(unjoined.membership()).toBeUndefined();
  });

  it("lets through a path this session holds, one nobody holds, and one outside the repository", () => {
    const { h, alice } = lead();
    alice.claim(["src"]);
    expect(alice.checkEdit("src/api/routes.ts")._unsafeUnwrap()).toEqual({ kind: "own" });
    const carol = h.start("carol").engine;
    expect(carol.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "free" });
    expect(carol.checkEdit("/etc/hosts")._unsafeUnwrap()).toEqual({ kind: "free" });
    expect(h.claimFiles().filter((name) => name.includes("README"))).toEqual([]);
  });

  it("lets through a claim whose owner is gone, and reaps nothing while it checks", () => {
    const { h, alice } = lead();
    alice.claim(["src/api/routes.ts"]);
    h.crash("alice");
    const before = h.claimFiles();
    expect(h.start("carol").engine.checkEdit("src/api/routes.ts")._unsafeUnwrap()).toEqual({ kind: "free" });
    expect(h.claimFiles()).toEqual(before);
  });

  it("blocks while a hung owner is within the session TTL, and not once this reader saw it silent that long", () => {
    const { h, alice } = lead();
    alice.claim(["src/api/routes.ts"]);
    h.hang("alice");
    const carol = h.start("carol").engine;
    expect(carol.checkEdit("src/api/routes.ts")._unsafeUnwrap().kind).toBe("held");
    h.advance(sessionTtlMs - 1_000);
    expect(carol.checkEdit("src/api/routes.ts")._unsafeUnwrap().kind).toBe("held");
    h.advance(2_000);
    expect(carol.checkEdit("src/api/routes.ts")._unsafeUnwrap().kind).toBe("free");
  });

  it("fails with the reason, never a verdict, when claims/ holds more than one listing reads", () => {
    const { h, alice } = lead();
    alice.claim(["src/api/routes.ts"]);
    for (let i = 0; i < claimsListedMax; i++) h.vol.writeFileSync(`${busRoot}/claims/junk-${i}`, "");
    const failed = h.start("carol").engine.checkEdit("src/api/routes.ts")._unsafeUnwrapErr();
    expect(failed.kind).toBe("claims-unlisted");
  });

  it("reads a store that does not exist yet as no claims, and makes none of its folders", () => {
    const h = createBusHarness();
    expect(h.start("carol").engine.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "free" });
    expect(h.vol.existsSync(busRoot)).toBe(false);
  });
});

describe("observed claims", () => {
  it("a joined session's edit of a path nobody holds claims it, observed, and a peer is then blocked", () => {
    const { h, alice } = lead();
    expect(alice.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "observed", key: "README.md" });
    expect(marks(h.claimFiles())).toHaveLength(1);
    const carol = h.start("carol").engine;
    const verdict = carol.checkEdit("README.md")._unsafeUnwrap();
    expect(verdict.kind === "held" && verdict.conflict).toMatchObject({ heldPath: "README.md", observed: true });
    expect(
      verdict.kind === "held" &&
        describeBusError({ kind: "claim-conflict", conflicts: [verdict.conflict], race: false }),
    ).toMatch(
      /README\.md is claimed by lead \(taken by its edits: it lapses 15 minutes after lead's last edit there\)/,
    );
    // The same rules as any claim: an explicit claim of it is refused too.
    carol.join({ label: "carol" });
    expect(carol.claim(["README.md"])._unsafeUnwrapErr().kind).toBe("claim-conflict");
  });

  it("an unjoined session and a session joined with observe false claim nothing on an edit", () => {
    const h = createBusHarness();
    const carol = h.start("carol").engine;
    expect(carol.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "free" });
    const dave = h.start("dave").engine;
    dave.join({ label: "dave", observe: false });
    expect(dave.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "free" });
    expect(h.claimFiles()).toEqual([]);
    expect(h.record("dave")?.observe).toBe(false);
    // A later join that does not say keeps it off.
    dave.join({ label: "dave2" });
    expect(dave.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "free" });
  });

  it("lapses observedLapseMs after the holder's last edit of the path, and each edit puts that off", () => {
    const { h, alice } = lead();
    alice.checkEdit("README.md");
    const carol = h.start("carol").engine;
    h.advance(observedLapseMs - 60_000);
    // Another edit by the holder stamps the claim again.
    expect(alice.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "own" });
    h.advance(observedLapseMs - 60_000);
    expect(carol.checkEdit("README.md")._unsafeUnwrap().kind).toBe("held");
    h.advance(120_000);
    expect(carol.checkEdit("README.md")._unsafeUnwrap()).toEqual({ kind: "free" });
    // Lapsed, it holds nothing: a claim takes it (and reaps it with its mark).
    carol.join({ label: "carol" });
    expect(carol.claim(["README.md"])._unsafeUnwrap().claimed).toEqual(["README.md"]);
    expect(marks(h.claimFiles())).toEqual([]);
  });

  it("an explicit claim of an observed path makes it explicit: it no longer lapses", () => {
    const { h, alice } = lead();
    alice.checkEdit("README.md");
    expect(alice.claim(["README.md"])._unsafeUnwrap().alreadyHeld).toEqual(["README.md"]);
    expect(marks(h.claimFiles())).toEqual([]);
    const carol = h.start("carol").engine;
    h.advance(2 * observedLapseMs);
    expect(carol.checkEdit("README.md")._unsafeUnwrap().kind).toBe("held");
  });

  it("a clock step lapses no observed claim: only time this reader saw pass counts", () => {
    const { h, alice } = lead();
    alice.checkEdit("README.md");
    const carol = h.start("carol").engine;
    expect(carol.checkEdit("README.md")._unsafeUnwrap().kind).toBe("held");
    h.clock.jump(2 * observedLapseMs);
    vi.setSystemTime(h.clock.now());
    expect(carol.checkEdit("README.md")._unsafeUnwrap().kind).toBe("held");
  });

  it("is released at leave with its mark, and a prune removes what a crashed holder left", () => {
    const { h, alice } = lead();
    alice.checkEdit("README.md");
    h.shutdown("alice");
    expect(h.claimFiles()).toEqual([]);
    const bob = h.start("bob").engine;
    bob.join({ label: "bob" });
    bob.checkEdit("README.md");
    h.crash("bob");
    h.start("carol").engine.status();
    expect(h.claimFiles()).toEqual([]);
  });

  it("a status prune reaps a lapsed observed claim of a live holder, and leaves a fresh one", () => {
    const { h, alice } = lead();
    alice.checkEdit("README.md");
    alice.checkEdit("src/api/routes.ts");
    h.advance(observedLapseMs - 60_000);
    alice.checkEdit("src/api/routes.ts");
    const carol = h.start("carol").engine;
    carol.status();
    expect(h.claimFiles().filter((name) => name.includes("README"))).toHaveLength(3);
    h.advance(120_000);
    carol.status();
    expect(h.claimFiles().some((name) => name.includes("README"))).toBe(false);
    // The path claim, the identity claim and the mark of the file edited since.
    expect(h.claimFiles().filter((name) => name.includes("routes"))).toHaveLength(3);
  });
});
