// The file system under the mail root, as `switchboard doctor` judges it: whether it is a network or
// other shared file system (from statfs's type), and whether watching a folder there works.
import { type FSWatcher, mkdtempSync, rmSync, statfsSync, watch, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CliContext } from "./command.js";
import { exists, type Finding, ok, problem, warn } from "./doctor-checks.js";

/** Network and other shared file systems break rename and watching: statfs's type says which. */
const networkTypes = new Map<number, string>([
  [0x6969, "NFS"],
  [0xff534d42, "CIFS"],
  [0xfe534d42, "SMB2"],
  [0x517b, "SMB"],
  [0x01021997, "9P"],
  [0x65735546, "FUSE"],
  [0x564c, "NCP"],
  [0x6b414653, "AFS"],
  [0x47504653, "GPFS"],
  [0x0bd00bd0, "Lustre"],
]);

export function checkFilesystem(ctx: CliContext): Finding[] {
  const at = exists(ctx.mailRoot) === undefined ? join(ctx.mailRoot, "..") : ctx.mailRoot;
  let type: number;
  try {
    type = statfsSync(at).type;
  } catch {
    return [];
  }
  const network = networkTypes.get(type);
  if (network === undefined)
    return [ok("filesystem", `${at} is on a local file system (type 0x${type.toString(16)}).`)];
  return [
    problem(
      "filesystem",
      `${at} is on ${network}: renames can be reported missing after they happened, and watching for mail is unreliable.`,
      "set XDG_STATE_HOME to a folder on a local disk for every session",
    ),
  ];
}

/** Whether a watch on a folder beside the mail root hears a file made in it within a second. */
export function checkWatch(ctx: CliContext): Promise<Finding[]> {
  const parent = exists(ctx.mailRoot) === undefined ? ctx.term.env.TMPDIR || "/tmp" : ctx.mailRoot;
  let folder: string;
  try {
    folder = mkdtempSync(join(parent, ".switchboard-watch-"));
  } catch {
    return Promise.resolve([]);
  }
  return new Promise((resolve) => {
    let watcher: FSWatcher | undefined;
    const end = (finding: Finding) => {
      clearTimeout(timer);
      watcher?.close();
      rmSync(folder, { recursive: true, force: true });
      resolve([finding]);
    };
    const timer = setTimeout(
      () =>
        end(
          warn(
            "watch",
            "Watching the mail root heard nothing within a second: mail arrives by the poll, up to a second late.",
            "use a local file system for the mail root",
          ),
        ),
      1000,
    );
    try {
      watcher = watch(folder, () =>
        end(ok("watch", "Watching the mail root works: mail arrives within milliseconds.")),
      );
      writeFileSync(join(folder, "probe"), "");
    } catch {
      end(warn("watch", "Watching the mail root is not possible here: mail arrives by the poll, up to a second late."));
    }
  });
}
