// Finding git in a bash command from shell-quote's words (the parser the extension bundles): env
// prefixes, wrappers, `cd`, `-C`, chains, subshells, quoting, `sh -c`, comments and lines; and which
// commands can be written back from their words.
import parse from "shell-quote/parse.js";
import { describe, expect, it } from "vitest";
import { writeCommand } from "../../../../src/domain/bus/git-guard/command-text.js";
import { dynamicMark, readCommand, type ShellToken } from "../../../../src/domain/bus/git-guard/shell-reading.js";

const words = (text: string) => parse(text, () => dynamicMark) as ShellToken[];
const read = (command: string, cwd = "/repo") => readCommand(command, cwd, words);
const calls = (command: string, cwd = "/repo") =>
  read(command, cwd).calls.map((call) => ({ dir: call.dir, args: call.args, retargeted: call.retargeted }));

describe("reading git calls from a bash command", () => {
  it("finds git through env prefixes, wrappers, chains, pipes and quoting", () => {
    expect(calls("git stash")).toEqual([{ dir: "/repo", args: ["stash"], retargeted: false }]);
    expect(calls("FOO=1 git -C ../x stash && git -c a=b status; git add -A | cat")).toEqual([
      { dir: "/repo", args: ["-C", "../x", "stash"], retargeted: false },
      { dir: "/repo", args: ["-c", "a=b", "status"], retargeted: false },
      { dir: "/repo", args: ["add", "-A"], retargeted: false },
    ]);
    expect(calls(`env -u X LANG=C command /usr/bin/git commit -m "it's done" || true`)[0]?.args).toEqual([
      "commit",
      "-m",
      "it's done",
    ]);
    expect(calls("time nohup git reset --hard 2>&1 >/dev/null")[0]?.args).toEqual(["reset", "--hard"]);
    expect(calls("echo git stash; printf 'git reset --hard'")).toEqual([]);
  });

  it("follows cd, subshells and sh -c, and loses the folder where the text does not say it", () => {
    expect(calls("cd sub && git status")[0]?.dir).toBe("/repo/sub");
    expect(calls("(cd sub && git status) ; git stash").map((c) => c.dir)).toEqual(["/repo/sub", "/repo"]);
    expect(calls("cd /tmp/a/../b; git status")[0]?.dir).toBe("/tmp/b");
    expect(calls("cd $DIR && git status")[0]?.dir).toBeUndefined();
    expect(calls("cd ~ && git status")[0]?.dir).toBeUndefined();
    expect(calls(`bash -lc 'cd sub && git stash pop'`)).toEqual([
      { dir: "/repo/sub", args: ["stash", "pop"], retargeted: false },
    ]);
    expect(calls(`sh -c "sh -c 'git clean -fd'"`)[0]?.args).toEqual(["clean", "-fd"]);
  });

  it("marks what the shell makes up as unknown, and a git pointed elsewhere as retargeted", () => {
    expect(calls("git stash pop $(git stash list | head -1)")).toEqual([
      { dir: "/repo", args: ["stash", "pop", undefined], retargeted: false },
      { dir: "/repo", args: ["stash", "list"], retargeted: false },
    ]);
    expect(calls("git checkout -- src/*.ts")[0]?.args).toEqual(["checkout", "--", undefined]);
    expect(calls("GIT_DIR=/x/.git git reset --hard")[0]?.retargeted).toBe(true);
    expect(calls("env -C /elsewhere git reset --hard")[0]?.retargeted).toBe(true);
  });

  it("reads each line as a command, continuations joined, and stops at a here-document", () => {
    expect(calls("git stash\ngit pull\ngit stash pop").map((c) => c.args)).toEqual([
      ["stash"],
      ["pull"],
      ["stash", "pop"],
    ]);
    expect(calls("git reset \\\n  --hard")[0]?.args).toEqual(["reset", "--hard"]);
    expect(calls("# tidy up first\ngit clean -fd").map((c) => c.args)).toEqual([["clean", "-fd"]]);
    expect(calls("cat <<EOF > notes\ngit reset --hard\nEOF\n")).toEqual([]);
    // A message over several lines is one word, not commands.
    expect(calls(`git commit -m "first\ngit reset --hard"`).map((c) => c.args[0])).toEqual(["commit"]);
  });

  it("keeps the tokens only of a command it can write back with the same meaning", () => {
    for (const plain of [`git stash && git pull --rebase && git stash pop`, `git stash push -m "wip it's" 2>&1`]) {
      const reading = read(plain);
      expect(reading.tokens).toBeDefined();
      expect(reading.calls.every((call) => call.at !== undefined)).toBe(true);
    }
    for (const unsure of [
      "git stash\ngit stash pop",
      "git stash push -m $MSG",
      "git add src/*.ts && git stash",
      "git stash # why",
      "cp ~/a b && git stash",
      "touch {a,b} && git stash",
      "ls x[12] && git stash",
    ]) {
      const reading = read(unsure);
      expect(reading.tokens, unsure).toBeUndefined();
      expect(reading.calls.every((call) => call.at === undefined)).toBe(true);
    }
    // A script inside sh -c is one word of the outer command: its calls cannot be edited.
    expect(read(`sh -c 'git stash'`).calls.map((call) => call.at)).toEqual([undefined]);
  });
});

describe("writing a command back", () => {
  it("writes every word so the shell reads it as before, and applies the edits", () => {
    const reading = read(`FOO='a b' git stash 2>&1 && echo "it's" > out.txt; git stash pop --index`);
    const tokens = reading.tokens as ShellToken[];
    const [push, pop] = reading.calls;
    const text = writeCommand(tokens, [
      {
        kind: "insert",
        after: push?.at?.args[0] as number,
        words: [{ text: "push" }, { text: "-m" }, { text: "[t] x" }],
      },
      { kind: "insert", after: pop?.at?.args.at(-1) as number, words: [{ raw: `"$(echo stash@{1})"` }] },
    ]);
    expect(text).toBe(
      `FOO='a b' git stash push -m '[t] x' 2>&1 && echo 'it'\\''s' >out.txt ; git stash pop --index "$(echo stash@{1})"`,
    );
    // Read again, it is the same command with the edits.
    expect(calls(text).map((c) => c.args)).toEqual([
      ["stash", "push", "-m", "[t] x"],
      ["stash", "pop", "--index", undefined],
    ]);
  });
});
