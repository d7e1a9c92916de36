import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  canonicalize,
  keysConflict,
  type PathLookup,
  type Realpath,
  resolveClaimPaths as resolveAllWith,
  resolveClaimTarget,
} from "../../../src/domain/bus/claim-paths.js";
import { pathCharsMax } from "../../../src/domain/bus/limits.js";

/** A tiny file system: the paths that exist, and links (absolute targets) among them. */
function realpathOver(existing: readonly string[], links: Record<string, string> = {}): Realpath {
  const present = new Set(["/", ...existing]);
  return (path) => {
    let at = "/";
    for (const segment of path.split("/")) {
      if (segment === "" || segment === ".") continue;
      if (segment === "..") {
        at = at.slice(0, at.lastIndexOf("/")) || "/";
        continue;
      }
      let next = at === "/" ? `/${segment}` : `${at}/${segment}`;
      next = links[next] ?? next;
      if (!present.has(next)) return undefined;
      at = next;
    }
    return at;
  };
}

/** A lookup of realpath alone: nothing else is known (no nested worktree, exact names). */
const only = (realpath: Realpath): PathLookup => ({
  realpath,
  identity: () => undefined,
  gitDirOf: () => undefined,
  folding: { caseFolds: false, normalizes: false },
});
type Place = Parameters<typeof resolveClaimTarget>[1];
const resolveClaimPath = (given: string, place: Place, realpath: Realpath) =>
  resolveClaimTarget(given, place, only(realpath)).map((target) => target.key);
const resolveClaimPaths = (given: string[], place: Place, realpath: Realpath) =>
  resolveAllWith(given, place, only(realpath));

const root = "/repo";
const fsOf = realpathOver(
  ["/repo", "/repo/src", "/repo/src/api", "/repo/src/api/routes.ts", "/outside", "/outside/x"],
  {
    "/repo/docs-link": "/repo/src",
    "/repo/escape": "/outside",
  },
);
const common = "/repo/.git";
const at = (cwd: string) => ({ root, cwd, common });
const key = (given: string, cwd = root) => resolveClaimPath(given, at(cwd), fsOf);

describe("resolveClaimPath", () => {
  it("makes a relative path repository-relative and posix from the cwd", () => {
    expect(key("src/api")._unsafeUnwrap()).toBe("src/api");
    expect(key("routes.ts", "/repo/src/api")._unsafeUnwrap()).toBe("src/api/routes.ts");
    expect(key("./src//api/")._unsafeUnwrap()).toBe("src/api");
  });

  it("refuses the repository root with the spec's sentence", () => {
    expect(key(".")._unsafeUnwrapErr()).toEqual({ kind: "repository-root", given: "." });
    expect(key("..", "/repo/src")._unsafeUnwrapErr()).toEqual({ kind: "repository-root", given: ".." });
    expect(key("/repo")._unsafeUnwrapErr()).toEqual({ kind: "repository-root", given: "/repo" });
  });

  it("claims the cwd with `.` below the root", () => {
    expect(key(".", "/repo/src/api")._unsafeUnwrap()).toBe("src/api");
  });

  it("refuses a path outside, absolute or relative", () => {
    expect(key("/outside/x")._unsafeUnwrapErr()).toEqual({ kind: "outside-repository", given: "/outside/x" });
    expect(key("../outside")._unsafeUnwrapErr()).toEqual({ kind: "outside-repository", given: "../outside" });
  });

  it("refuses an absolute path outside before following any link", () => {
    let calls = 0;
    const counting: Realpath = (path) => {
      calls++;
      return fsOf(path);
    };
    expect(resolveClaimPath("/elsewhere/link", at(root), counting).isErr()).toBe(true);
    expect(calls).toBe(0);
  });

  it("accepts an absolute path inside the repository", () => {
    expect(key("/repo/src/api/routes.ts")._unsafeUnwrap()).toBe("src/api/routes.ts");
  });

  it("re-keys a link inside the repository to its target, so both spellings are one claim", () => {
    expect(key("docs-link/api")._unsafeUnwrap()).toBe("src/api");
  });

  it("refuses a link whose target leaves the repository", () => {
    expect(key("escape/x")._unsafeUnwrapErr().kind).toBe("outside-repository");
  });

  it("claims a path that does not exist yet through its deepest existing ancestor", () => {
    expect(key("docs-link/new/file.ts")._unsafeUnwrap()).toBe("src/new/file.ts");
    expect(key("src/new/../api")._unsafeUnwrap()).toBe("src/api");
  });

  it("follows a link reached through a '..' that cancels a folder not made yet: one claim, and refused when it leaves", () => {
    expect(resolveClaimPath("new-dir/../docs-link/api", at(root), fsOf)._unsafeUnwrap()).toBe("src/api");
    expect(resolveClaimPath("new-dir/../escape/x", at(root), fsOf)._unsafeUnwrapErr()).toEqual({
      kind: "outside-repository",
      given: "new-dir/../escape/x",
    });
  });

  it("reads an absolute path written through the session's own spelling of the repository as the path it names", () => {
    const place = { root, cwd: "/repo/src", common, spelled: { path: "/home/me/work", canonical: "/repo" } };
    expect(resolveClaimPath("/home/me/work/src/api", place, fsOf)._unsafeUnwrap()).toBe("src/api");
    expect(resolveClaimPath("/home/me/work/docs-link/api/../api", place, fsOf)._unsafeUnwrap()).toBe("src/api");
    expect(resolveClaimPath("/home/me/work", place, fsOf)._unsafeUnwrapErr().kind).toBe("repository-root");
    expect(resolveClaimPath("/home/me/elsewhere/x", place, fsOf)._unsafeUnwrapErr().kind).toBe("outside-repository");
  });

  it("refuses empty and over-long paths", () => {
    expect(key("  ")._unsafeUnwrapErr()).toEqual({ kind: "empty-path" });
    expect(key("a".repeat(pathCharsMax + 1))._unsafeUnwrapErr().kind).toBe("path-too-long");
  });

  it("outside a repository the cwd is the root, so `.` there is refused", () => {
    const plain = realpathOver(["/home", "/home/me"]);
    const result = resolveClaimPath(".", { root: "/home/me", cwd: "/home/me", common: "/home/me" }, plain);
    expect(result._unsafeUnwrapErr().kind).toBe("repository-root");
  });

  it("never yields an empty key, `.`, or one that starts with a slash or `..`", () => {
    const segment = fc.constantFrom("src", "api", "..", ".", "", "docs-link", "escape", "new", "x");
    fc.assert(
      fc.property(fc.array(segment, { maxLength: 8 }), fc.boolean(), (parts, absolute) => {
        const given = `${absolute ? "/repo/" : ""}${parts.join("/")}`;
        const result = key(given, "/repo/src");
        if (result.isErr()) return true;
        const k = result.value;
        return k !== "" && k !== "." && !k.startsWith("/") && !k.split("/").includes("..");
      }),
    );
  });
});

describe("resolveClaimPaths", () => {
  it("drops duplicates spelled differently and keeps the order given", () => {
    expect(resolveClaimPaths(["src/api", "docs-link/api", "README.md"], at(root), fsOf)._unsafeUnwrap()).toEqual([
      "src/api",
      "README.md",
    ]);
  });

  it("refuses the whole call on the first bad path", () => {
    expect(resolveClaimPaths(["src", "."], at(root), fsOf)._unsafeUnwrapErr().kind).toBe("repository-root");
  });
});

describe("canonicalize", () => {
  it("appends what does not exist to the real target of what does", () => {
    expect(canonicalize("/repo/docs-link/a/b", fsOf)).toBe("/repo/src/a/b");
  });
});

describe("keysConflict", () => {
  it("holds for the same path and for a directory prefix either way", () => {
    expect(keysConflict("src/api", "src/api")).toBe(true);
    expect(keysConflict("src/api", "src/api/routes.ts")).toBe(true);
    expect(keysConflict("src/api/routes.ts", "src")).toBe(true);
  });

  it("does not hold for siblings or a shared name prefix that is not a folder", () => {
    expect(keysConflict("src/api", "src/apix")).toBe(false);
    expect(keysConflict("src/a", "lib/a")).toBe(false);
  });

  it("is symmetric", () => {
    const k = fc.array(fc.constantFrom("a", "b", "ab"), { minLength: 1, maxLength: 4 }).map((p) => p.join("/"));
    fc.assert(fc.property(k, k, (a, b) => keysConflict(a, b) === keysConflict(b, a)));
  });
});
