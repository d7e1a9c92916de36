// `switchboard doctor` on the mail root itself: where it is (a folder, a link and where it leads, or
// not made yet and whether it can be), the path up to it, and its owner and mode.
import { chmodSync } from "node:fs";
import { dirname } from "node:path";
import { checkRootPath } from "../adapters/fs/shared/fs-path-safety.js";
import { nodeFs } from "../adapters/node/node-fs.js";
import { nodeRealPaths } from "../adapters/node/node-real-paths.js";
import { currentUid } from "../adapters/node/process-user.js";
import { describeStoreError } from "../domain/mail/store-errors.js";
import type { StoreError } from "../ports/shared/store-error.js";
import type { CliContext } from "./command.js";
import { exists, type Finding, folderFinding, ok, problem, warn } from "./doctor-checks.js";
import { damagedShellAddress } from "./shell-address.js";

export function checkRoot(ctx: CliContext, fix: boolean): Finding[] {
  const root = ctx.mailRoot;
  const stats = exists(root);
  const blocker = stats === undefined ? nonFolderAbove(root) : undefined;
  if (blocker !== undefined)
    return [
      problem(
        "root",
        `${blocker} is not a folder, so the mail root ${root} cannot be made.`,
        `move ${blocker} away, or set XDG_STATE_HOME to a folder`,
      ),
    ];
  if (stats?.isSymbolicLink() === true && nodeRealPaths.realpath(root) === undefined)
    return [
      problem("root", `${root} is a link that leads nowhere.`, "remove the link; the first session makes the folder"),
    ];
  // The path up to the root (and to where it would be made): a relative root, a folder above that
  // another user could change. A root not made yet is walked up to where it stops.
  const walked = checkRootPath(nodeFs, root, currentUid(), { path: root });
  if (walked.isErr() && !(stats === undefined && walked.error.kind === "io" && walked.error.code === "ENOENT"))
    return [problem("path", `${describeStoreError(walked.error).replace(/\.$/, "")}.`, pathFix(walked.error))];
  if (stats === undefined) return [ok("root", `${root} does not exist yet: the first session makes it.`)];
  const findings: Finding[] = [];
  let folder = root;
  if (stats.isSymbolicLink()) {
    const target = nodeRealPaths.realpath(root)!;
    const text = `${root} is a link to ${target}; sessions use that folder, and stop reading mail if the link is pointed elsewhere.`;
    findings.push(warn("root", text));
    folder = target;
  }
  if (exists(folder)?.isDirectory() !== true)
    return [
      ...findings,
      problem(
        "root",
        `${folder} is not a folder: no session can keep mail there.`,
        "move it away; the first session makes the folder",
      ),
    ];
  const finding = rootFinding(folder, fix);
  findings.push(finding ?? ok("root", `${folder} is yours and closed to other users (0700).`));
  const damaged = damagedShellAddress(root);
  if (damaged !== undefined)
    findings.push(
      problem(
        "root",
        `${damaged} does not hold the shell's address: switchboard send and ask fail until it goes.`,
        `rm -r ${damaged} (the next send or ask makes a new one)`,
      ),
    );
  return findings;
}

/** The mail root folder (a link's target): this user's and 0700, or what is wrong (fixed with `fix`). */
function rootFinding(folder: string, fix: boolean): Finding | undefined {
  const stats = exists(folder)!;
  if (stats.uid !== currentUid()) return folderFinding("root", folder, false);
  if ((stats.mode & 0o077) === 0) return undefined;
  const mode = (stats.mode & 0o777).toString(8);
  if (!fix)
    return problem(
      "root",
      `${folder} is open to other users (mode ${mode}).`,
      `chmod 700 ${folder} (or switchboard doctor --fix)`,
    );
  chmodSync(folder, 0o700);
  return { check: "root", status: "fixed", text: `${folder} was open to other users (mode ${mode}); it is 0700 now.` };
}

/** The nearest existing path above `path` when it is not a folder (a file where a folder must be). */
function nonFolderAbove(path: string): string | undefined {
  for (let at = dirname(path); at !== dirname(at); at = dirname(at)) {
    const stats = exists(at);
    if (stats === undefined) continue;
    // A link counts by what it leads to (realpath: undefined when that is nothing).
    const target = stats.isSymbolicLink() ? nodeRealPaths.realpath(at) : at;
    return target !== undefined && exists(target)?.isDirectory() === true ? undefined : at;
  }
  return undefined;
}

/** What fixes a path the mailbox refuses: an absolute root, a folder above closed to others, or a
 * root away from what another user owns. */
function pathFix(error: StoreError): string | undefined {
  switch (error.kind) {
    case "io":
      return error.code === "EINVAL" ? "set XDG_STATE_HOME (or HOME) to an absolute path" : undefined;
    case "open-ancestor":
      return `chmod go-w ${error.path} (or set XDG_STATE_HOME to a folder under one only you can change)`;
    case "foreign-owner":
      return "set XDG_STATE_HOME to a folder only you (or root) can change";
    default:
      return undefined;
  }
}
