// The demo's shell step: the `switchboard` program, built as the package builds it, lists the
// running sessions and asks one of them from a plain shell, as a script or a git hook would.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { buildCliPackage } from "../test/cli/cli-build.js";
import { cliEnv } from "../test/cli/cli-process.js";
import { e2ePaths, type Sandbox } from "../test/e2e/harness/rpc-session.js";
import { check, say } from "./demo-log.js";

/** Runs `switchboard <args>` to its end (asynchronously: the Pi sessions keep writing to this process). */
function switchboard(
  program: string,
  sandbox: Sandbox,
  args: readonly string[],
): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(
      e2ePaths.nodeBin,
      [program, ...args],
      { env: cliEnv(sandbox), timeout: 30_000 },
      (error, stdout, stderr) => {
        resolve({
          code: error === null ? 0 : typeof error.code === "number" ? error.code : 1,
          out: `${stdout}${stderr}`,
        });
      },
    );
  });
}

export async function runShellDemo(sandbox: Sandbox): Promise<void> {
  const program = buildCliPackage(join(sandbox.root, "switchboard"));
  say("shell", "$ switchboard list");
  const listed = await switchboard(program, sandbox, ["list"]);
  say("shell", listed.out.trimEnd());
  check(
    listed.code === 0 && ["alice", "bob", "carol"].every((n) => listed.out.includes(n)),
    "switchboard list shows the three sessions",
  );
  say("shell", '$ switchboard ask carol "Is the release branch green?"');
  const asked = await switchboard(program, sandbox, ["ask", "carol", "Is the release branch green?"]);
  say("shell", `${asked.out.trimEnd()}   (exit ${asked.code})`);
  check(
    asked.code === 0 && asked.out === "echo: Is the release branch green?\n",
    "carol answered the shell's ask, exit 0",
  );
}
