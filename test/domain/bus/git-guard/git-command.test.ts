// What a git invocation would do, read from its words: global options, the stash forms, and the
// subcommands that discard, delete, switch, stage or commit; everything else (and any unsure form)
// is "other".
import { describe, expect, it } from "vitest";
import { readGit } from "../../../../src/domain/bus/git-guard/git-command.js";

const action = (line: string) => readGit(line.split(" ")).action;
const kind = (line: string) => action(line).kind;

describe("reading a git invocation", () => {
  it("reads the global options: -C folders in order, -c values skipped, --git-dir and --work-tree retarget", () => {
    expect(readGit(["-C", "a", "-c", "x=y", "-C", "b", "--no-pager", "status"])).toMatchObject({
      dirs: ["a", "b"],
      retargeted: false,
      at: 7,
      action: { kind: "other" },
    });
    expect(readGit(["--git-dir=/x", "reset", "--hard"]).retargeted).toBe(true);
    expect(readGit(["--work-tree", "/x", "reset", "--hard"]).retargeted).toBe(true);
    expect(readGit(["-C", undefined, "stash"]).retargeted).toBe(true);
  });

  it("reads every push form and where its tagged message goes", () => {
    expect(action("stash")).toEqual({
      kind: "stash-push",
      scope: { kind: "all" },
      untracked: false,
      tag: { kind: "insert", after: 0, lead: ["push", "-m"], text: "" },
    });
    expect(action("stash -u")).toMatchObject({ untracked: true, tag: { kind: "insert", after: 0 } });
    expect(action("stash push -- src/a.ts")).toMatchObject({
      scope: { kind: "paths", specs: ["src/a.ts"] },
      tag: { kind: "insert", after: 1, lead: ["-m"] },
    });
    expect(action("stash push -m wip")).toMatchObject({ tag: { kind: "replace", at: 3, prefix: "", text: "wip" } });
    expect(action("stash push --message=wip")).toMatchObject({
      tag: { kind: "replace", at: 2, prefix: "--message=", text: "wip" },
    });
    expect(action("stash -kmwip")).toMatchObject({ tag: { kind: "replace", at: 1, prefix: "-km", text: "wip" } });
    expect(action("stash save -u fix")).toMatchObject({
      untracked: true,
      tag: { kind: "replace", at: 3, prefix: "", text: "fix" },
    });
    expect(readGit(["stash", "push", "-m", undefined]).action).toMatchObject({ kind: "stash-push", tag: undefined });
  });

  it("reads pop, apply, drop and branch with their entry, and clear", () => {
    expect(action("stash pop")).toEqual({ kind: "stash-take", verb: "pop", ref: { kind: "bare" } });
    expect(action("stash apply --index stash@{2}")).toMatchObject({ verb: "apply", ref: { kind: "index", index: 2 } });
    expect(action("stash drop -q 3")).toMatchObject({ verb: "drop", ref: { kind: "index", index: 3 } });
    expect(action("stash drop refs/stash@{1}")).toMatchObject({ ref: { kind: "index", index: 1 } });
    expect(action("stash pop abc123")).toMatchObject({ ref: { kind: "other" } });
    expect(action("stash branch fix stash@{4}")).toMatchObject({ verb: "branch", ref: { kind: "index", index: 4 } });
    expect(action("stash branch fix")).toMatchObject({ verb: "branch", ref: { kind: "bare" } });
    expect(kind("stash clear")).toBe("stash-clear");
    for (const read of ["stash list", "stash show -p stash@{1}", "stash create"]) expect(kind(read)).toBe("other");
  });

  it("reads what discards: reset --hard, checkout and restore of paths", () => {
    expect(action("reset --hard")).toEqual({
      kind: "discard",
      command: "reset --hard",
      source: "HEAD",
      scope: { kind: "all" },
    });
    expect(action("reset -q --hard origin/main")).toMatchObject({ source: "origin/main" });
    for (const soft of ["reset", "reset --soft HEAD~1", "reset HEAD -- a", "reset --keep x"])
      expect(kind(soft)).toBe("other");
    expect(action("checkout -- .")).toMatchObject({ kind: "discard", source: "index", scope: { specs: ["."] } });
    expect(action("checkout HEAD~2 -- src")).toMatchObject({
      kind: "discard",
      source: "HEAD~2",
      scope: { specs: ["src"] },
    });
    expect(action("checkout -f main")).toEqual({ kind: "checkout", first: "main", rest: [], force: true });
    expect(action("checkout -b topic origin/main")).toMatchObject({ kind: "switch", target: "origin/main" });
    expect(kind("checkout -b topic")).toBe("other");
    expect(kind("checkout -p -- src")).toBe("other");
    expect(action("restore .")).toMatchObject({ kind: "discard", source: "index", scope: { specs: ["."] } });
    expect(action("restore --source=HEAD~1 src")).toMatchObject({ source: "HEAD~1" });
    expect(action("restore -SW src")).toMatchObject({ source: "HEAD" });
    expect(kind("restore --staged src")).toBe("other");
  });

  it("reads switch, clean, add and commit", () => {
    expect(action("switch main")).toEqual({ kind: "switch", command: "switch", target: "main", force: false });
    expect(action("switch -")).toMatchObject({ target: "@{-1}" });
    expect(action("switch --discard-changes main")).toMatchObject({ force: true });
    expect(kind("switch -c topic")).toBe("other");
    expect(action("clean -fdx")).toEqual({ kind: "clean", scope: { kind: "paths", specs: ["."] }, ignored: "also" });
    expect(action("clean -f -X build")).toMatchObject({ scope: { specs: ["build"] }, ignored: "only" });
    for (const safe of ["clean -d", "clean -fn", "clean -f --dry-run"]) expect(kind(safe)).toBe("other");
    expect(action("add -A")).toEqual({ kind: "stage", command: "add", scope: { kind: "all" }, untracked: true });
    expect(action("add .")).toMatchObject({ scope: { specs: ["."] }, untracked: true });
    expect(action("add -u")).toMatchObject({ scope: { kind: "all" }, untracked: false });
    expect(action("add src/a.ts")).toMatchObject({ scope: { specs: ["src/a.ts"] } });
    for (const safe of ["add", "add -p", "add -n .", "add --pathspec-from-file=x"]) expect(kind(safe)).toBe("other");
    expect(action("commit -am fix")).toEqual({
      kind: "stage",
      command: "commit",
      scope: { kind: "all" },
      untracked: false,
    });
    expect(action("commit -m fix -- src")).toMatchObject({ scope: { specs: ["src"] } });
    expect(action("commit -n -m fix .")).toMatchObject({ scope: { specs: ["."] } });
    for (const safe of [
      "commit -m fix",
      "commit --amend --no-edit",
      "commit -ma",
      "commit -F msg.txt",
      "commit --dry-run -a",
    ]) {
      expect(kind(safe), safe).toBe("other");
    }
  });

  it("passes everything else", () => {
    for (const line of ["status", "log --oneline", "pull --rebase", "rebase -i main", "push -f", "merge x", "foo"]) {
      expect(kind(line)).toBe("other");
    }
  });
});
