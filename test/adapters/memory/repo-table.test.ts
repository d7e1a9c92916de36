import { describe, expect, it } from "vitest";
import { createRepoTable } from "../../../src/adapters/memory/repo-table.js";

describe("repo table", () => {
  const table = createRepoTable([{ common: "/src/app/.git", roots: ["/src/app", "/src/app-wt"] }]);

  it("puts a cwd at or below a worktree top in its repository, the worktrees sharing one key", () => {
    const main = table.resolve("/src/app/lib")._unsafeUnwrap();
    const linked = table.resolve("/src/app-wt")._unsafeUnwrap();
    expect(main).toEqual({
      key: expect.stringMatching(/^app-[0-9a-f]{8}$/),
      common: "/src/app/.git",
      root: "/src/app",
      cwd: "/src/app/lib",
    });
    expect(linked).toMatchObject({ key: main.key, root: "/src/app-wt" });
  });

  it("makes any other cwd its own place, and a removed one an error", () => {
    expect(table.resolve("/src/application")._unsafeUnwrap()).toMatchObject({
      common: "/src/application",
      root: "/src/application",
    });
    table.remove("/src/app/lib");
    expect(table.resolve("/src/app/lib/x")._unsafeUnwrapErr().kind).toBe("no-cwd");
    expect(table.resolve("/src/app")._unsafeUnwrap().root).toBe("/src/app");
  });
});
