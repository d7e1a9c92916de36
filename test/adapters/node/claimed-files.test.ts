// The look at claimed files around a shell call, on real files: a claimed folder is walked (links
// stamped as themselves, never followed; `.git` passed over), the look is bounded, and what the bound
// left out is never named as made or removed.
import { appendFileSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stampClaims } from "../../../src/adapters/node/claimed-files.js";
import { claimedWrites } from "../../../src/domain/bus/claimed-writes.js";
import type { WatchedClaim } from "../../../src/domain/bus/engine/index.js";

let base: string;
beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "claimed-files-")));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const holder = { id: "01a232e9-7f64-7000-8000-00000000a11c", label: "lead" };
const claim = (key: string): WatchedClaim => ({ key, holder, paths: [join(base, key)] });
const files = (dir: string, names: string[]) => {
  mkdirSync(join(base, dir), { recursive: true });
  for (const name of names) writeFileSync(join(base, dir, name), `${name}\n`);
};
const named = (writes: ReturnType<typeof claimedWrites>) =>
  writes.map((w) => `${w.change} ${w.path.slice(base.length)}`);

/** The look before, the command's effect, the look after, and what the comparison names. */
function around(claims: WatchedClaim[], filesMax: number, effect: () => void) {
  const before = stampClaims(claims, filesMax);
  effect();
  const after = stampClaims(claims, filesMax);
  return { writes: named(claimedWrites(before, after)), before, after };
}

describe("the look at claimed files around a shell call", () => {
  it("names each file made, removed, appended to or replaced under a claimed folder, and one claimed file made", () => {
    files("docs/api", ["a.md", "b.md", "c.md"]);
    const { writes } = around([claim("docs"), claim("new.ts")], 100, () => {
      appendFileSync(join(base, "docs/api/a.md"), "more\n");
      rmSync(join(base, "docs/api/b.md"));
      rmSync(join(base, "docs/api/c.md"));
      writeFileSync(join(base, "docs/api/c.md"), "c.md\n");
      mkdirSync(join(base, "docs/deep/er"), { recursive: true });
      writeFileSync(join(base, "docs/deep/er/x.md"), "");
      writeFileSync(join(base, "new.ts"), "");
    });
    expect(writes).toEqual([
      "changed /docs/api/a.md",
      "removed /docs/api/b.md",
      "changed /docs/api/c.md",
      "made /docs/deep/er/x.md",
      "made /new.ts",
    ]);
  });

  it("names the files under a claimed folder that did not exist before the call", () => {
    const { writes } = around([claim("gen")], 100, () => files("gen/out", ["one.js"]));
    expect(writes).toEqual(["made /gen/out/one.js"]);
  });

  it("names nothing when the call touched no claimed file", () => {
    files("docs", ["a.md"]);
    files("free", ["b.md"]);
    const { writes, before } = around([claim("docs")], 100, () => appendFileSync(join(base, "free/b.md"), "x"));
    expect(writes).toEqual([]);
    expect(before.uncheckedFiles).toBe(0);
  });

  it("passes over .git and never follows a link: a link is stamped as itself", () => {
    files("docs/.git", ["index"]);
    files("outside", ["secret.md"]);
    files("docs", ["a.md"]);
    symlinkSync(join(base, "outside"), join(base, "docs/out"));
    const { writes, before } = around([claim("docs")], 100, () => {
      appendFileSync(join(base, "docs/.git/index"), "x");
      appendFileSync(join(base, "outside/secret.md"), "x");
    });
    expect(writes).toEqual([]);
    const looked = [...(before.claims[0]?.paths.keys() ?? [])].map((p) => p.slice(base.length)).sort();
    expect(looked).toEqual(["/docs", "/docs/a.md", "/docs/out"]);
    const { writes: relinked } = around([claim("docs")], 100, () => {
      rmSync(join(base, "docs/out"));
      symlinkSync(join(base, "outside/secret.md"), join(base, "docs/out"));
    });
    expect(relinked).toEqual(["changed /docs/out"]);
  });

  it("stops at the bound, counts what it left out, and names a file made before the bound's edge without naming the one the edge passed over", () => {
    files("docs", ["b1", "b2", "b3", "b4"]);
    // The folder and three files are looked at: b4 is past the bound.
    const made = around([claim("docs")], 4, () => writeFileSync(join(base, "docs/a0"), ""));
    expect(made.before.uncheckedFiles).toBe(1);
    expect(made.after.uncheckedFiles).toBe(2);
    expect(made.writes).toEqual(["made /docs/a0"]);
    rmSync(join(base, "docs/a0"));
    const removed = around([claim("docs")], 4, () => rmSync(join(base, "docs/b1")));
    expect(removed.writes).toEqual(["removed /docs/b1"]);
  });

  it("shares the bound among claims: the claims past it are not looked at, and not named", () => {
    files("one", ["a"]);
    files("two", ["b"]);
    const { writes, before } = around([claim("one"), claim("two")], 2, () => {
      appendFileSync(join(base, "one/a"), "x");
      appendFileSync(join(base, "two/b"), "x");
    });
    expect(before.uncheckedFiles).toBe(1);
    expect(writes).toEqual(["changed /one/a"]);
  });

  it("passes a folder of many entries past the bound without looking at each", () => {
    files(
      "big",
      Array.from({ length: 2_000 }, (_, i) => `f${i}`),
    );
    const { writes, before } = around([claim("big")], 10, () => appendFileSync(join(base, "big/f0"), "x"));
    expect(before.uncheckedFiles).toBe(1_991);
    expect(writes).toEqual(["changed /big/f0"]);
  });
});
