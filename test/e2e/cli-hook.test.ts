// The README's git hook, run verbatim: copied out of the README into a repository's
// .git/hooks/post-commit, with `switchboard` on PATH, a commit asks a real Pi session named reviewer
// about itself and prints its answer; with no reviewer running, the commit still succeeds at once.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliBundle, cliEnv } from "../cli/cli-process.js";
import { e2ePaths } from "./harness/pi-command.js";
import { createSandbox, type PiSession, type Sandbox } from "./harness/rpc-session.js";
import { runTimeoutMs, startMailSessions, startTimeoutMs } from "./mail-support.js";

const reviewer = { id: "0190a1a1-aaaa-7000-8000-0000000000a1", name: "reviewer" };

/** The README's hook, as printed there. */
function readmeHook(): string {
  const readme = readFileSync(join(e2ePaths.repoRoot, "README.md"), "utf8");
  const match = /```sh\n(#!\/bin\/sh\n# \.git\/hooks\/post-commit\n[\s\S]*?)```/.exec(readme);
  if (match === null) throw new Error("README.md has no post-commit hook block");
  return match[1]!;
}

describe("the README's git hook, verbatim, against a real Pi session", () => {
  let sandbox: Sandbox;
  let pi: PiSession;
  let repo: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    sandbox = createSandbox();
    [pi] = (await startMailSessions(sandbox, [reviewer])) as [PiSession];
    // `switchboard` on PATH, as `npm install -g` puts it there.
    const bin = join(sandbox.root, "bin");
    mkdirSync(bin);
    const program = cliBundle(sandbox);
    chmodSync(program, 0o755);
    symlinkSync(program, join(bin, "switchboard"));
    env = cliEnv(sandbox, {
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    });
    env.PATH = `${bin}:${dirname(e2ePaths.nodeBin)}:${env.PATH}`;
    repo = sandbox.cwdFor("repo");
    execFileSync("git", ["init", "-q"], { cwd: repo, env });
    const hook = join(repo, ".git", "hooks", "post-commit");
    writeFileSync(hook, readmeHook(), { mode: 0o755 });
  }, startTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, 30_000);

  const commit = (message: string) => {
    writeFileSync(join(repo, "file.txt"), `${message}\n`);
    execFileSync("git", ["add", "file.txt"], { cwd: repo, env });
    // The hook's stdout and stderr reach the committer's terminal: both are captured here.
    return execFileSync("sh", ["-c", `git commit -q -m "${message}" 2>&1`], {
      cwd: repo,
      env,
      encoding: "utf8",
      timeout: runTimeoutMs,
    });
  };

  it("a commit asks the reviewer about itself and prints the answer", () => {
    const output = commit("first change");
    const sha = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repo, env, encoding: "utf8" }).trim();
    expect(output).toBe(`echo: commit ${sha}\n`);
  });

  it("with no reviewer running, the commit succeeds at once and says why there is no review", async () => {
    await pi.close();
    const output = commit("second change");
    expect(output).toBe(
      'switchboard: No running session is named "reviewer" or has an id starting with it. A closed session is reached by its full id.\n' +
        "switchboard: no review of this commit (exit 6)\n",
    );
  });
});
