// The holders' side of a shell write, on the engine: each holder gets one event naming its files,
// the session that ran the command and the command's first line, sent by a session that need not
// have joined (and does not join by sending it); and the claims a shell call is watched for.
import { afterEach, describe, expect, it, vi } from "vitest";
import type { ClaimedWrite } from "../../../../src/domain/bus/claimed-writes.js";
import { shellCommandShownCharsMax, shellWritesNamedMax } from "../../../../src/domain/bus/limits.js";
import { createBusHarness, idOf, repo } from "./harness.js";

afterEach(() => vi.useRealTimers());

const lead = { id: idOf.alice, label: "lead" };
const bob = { id: idOf.bob, label: "bob" };
const wrote = (path: string, key: string, holder = lead, change: ClaimedWrite["change"] = "changed"): ClaimedWrite => ({
  path: `${repo}/${path}`,
  key,
  holder,
  change,
});

function holders() {
  const h = createBusHarness();
  const alice = h.start("alice").engine;
  alice.join({ label: "lead" });
  alice.claim(["src/api/routes.ts", "docs"]);
  const b = h.start("bob").engine;
  b.join({ label: "bob" });
  b.claim(["README.md"]);
  return { h, alice, bob: b };
}

const eventsOf = (engine: ReturnType<typeof holders>["alice"]) =>
  engine
    .inbox(undefined)
    ._unsafeUnwrap()
    .rows.map((row) => row.message)
    .map(({ from, fromLabel, kind, text, paths }) => ({ from, fromLabel, kind, text, paths }));

describe("a shell write reported to its holders", () => {
  it("sends each holder one event from an unjoined session, which stays off the bus", () => {
    const { h, alice, bob: b } = holders();
    const carol = h.start("carol").engine;
    const told = carol.reportClaimedWrites({
      writes: [
        wrote("docs/new.md", "docs", lead, "made"),
        wrote("src/api/routes.ts", "src/api/routes.ts"),
        wrote("README.md", "README.md", bob, "removed"),
      ],
      command: "sed -i s/a/b/ src/api/routes.ts && touch docs/new.md\necho done",
      fallbackLabel: "session 01a232e9-81",
    });
    expect(told._unsafeUnwrap().sort()).toEqual([idOf.alice, idOf.bob].sort());
    expect(eventsOf(alice)).toEqual([
      {
        from: idOf.carol,
        fromLabel: "session 01a232e9-81",
        kind: "event",
        text: `session 01a232e9-81's shell command changed files under your claims: ${repo}/docs/new.md (made), ${repo}/src/api/routes.ts (changed). The command: sed -i s/a/b/ src/api/routes.ts && touch docs/new.md`,
        paths: ["docs", "src/api/routes.ts"],
      },
    ]);
    expect(eventsOf(b).map((e) => e.text)).toEqual([
      `session 01a232e9-81's shell command changed files under your claims: ${repo}/README.md (removed). The command: sed -i s/a/b/ src/api/routes.ts && touch docs/new.md`,
    ]);
    expect(h.record("carol")).toBeUndefined();
    expect(carol.membership()).toBeUndefined();
  });

  it("names a joined reporter by its label, the command's first line that says something, clipped, and past the named files a count", () => {
    const { h, alice } = holders();
    const dave = h.start("dave").engine;
    dave.join({ label: "builder" });
    const many = Array.from({ length: shellWritesNamedMax + 3 }, (_, i) => wrote(`docs/f${i}.md`, "docs"));
    const long = "x".repeat(shellCommandShownCharsMax + 50);
    dave.reportClaimedWrites({ writes: many, command: `\n  \n  ${long}\nnext`, fallbackLabel: "unused" });
    const [event] = eventsOf(alice);
    expect(event?.from).toBe(idOf.dave);
    expect(event?.fromLabel).toBe("builder");
    expect(event?.text).toMatch(/^builder's shell command changed files under your claims: /);
    expect(event?.text).toContain(`${repo}/docs/f${shellWritesNamedMax - 1}.md (changed) and 3 more. The command: x`);
    expect(event?.text).toContain(`The command: ${long.slice(0, shellCommandShownCharsMax - 1)}`);
    expect(event?.text).not.toContain(long);
    expect(event?.paths).toEqual(["docs"]);
  });

  it("tells nobody whose session is gone, and still tells the rest", () => {
    const { h, bob: b } = holders();
    h.crash("alice");
    const carol = h.start("carol").engine;
    const told = carol.reportClaimedWrites({
      writes: [wrote("docs/a.md", "docs"), wrote("README.md", "README.md", bob)],
      command: "make",
      fallbackLabel: "session 01a232e9-81",
    });
    expect(told._unsafeUnwrap()).toEqual([idOf.bob]);
    expect(eventsOf(b)).toHaveLength(1);
  });
});

describe("the claims a shell call is watched for", () => {
  it("are the live peers' claims, each at its path in the holder's worktree, never this session's own", () => {
    const { h, bob: b } = holders();
    const watched = b.watchedClaims()._unsafeUnwrap();
    expect(
      watched
        .map(({ key, holder, paths }) => ({ key, holder: holder.label, paths }))
        .sort((x, y) => (x.key < y.key ? -1 : 1)),
    ).toEqual([
      { key: "docs", holder: "lead", paths: [`${repo}/docs`] },
      { key: "src/api/routes.ts", holder: "lead", paths: [`${repo}/src/api/routes.ts`] },
    ]);
    h.crash("alice");
    expect(
      h
        .start("carol")
        .engine.watchedClaims()
        ._unsafeUnwrap()
        .map((c) => c.key),
    ).toEqual(["README.md"]);
  });
});
