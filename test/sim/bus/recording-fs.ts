// The volume as every bus process sees it: each write's path is checked against the bus folder
// (nothing is written outside it), each message renamed into an inbox is noted as published, with
// its mtime, and raises a watcher hint as inotify would (late, sometimes dropped, sometimes twice).
import { posix } from "node:path";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { guardWrites } from "../shared/write-guard.js";
import type { BusWorld } from "./bus-world.js";

export function recordingFs(fs: FsLike, world: BusWorld): FsLike {
  // Judged on the normalized path: `<bus>/../x` is outside, however it is spelled.
  const inside = (path: string) => {
    const normal = posix.normalize(path);
    return normal === world.busRoot || normal.startsWith(`${world.busRoot}/`);
  };
  return guardWrites(
    fs,
    (call, path) => {
      if (!inside(path)) world.violations.push(`${call} wrote outside the bus folder: ${path}`);
    },
    (target, call, args) => {
      if (call === "renameSync") published(target, world, args[1] as string);
    },
  );
}

/** A message published into an inbox: ground truth for "no message deleted unseen", and a hint. */
function published(fs: FsLike, world: BusWorld, to: string): void {
  const inbox = `${world.busRoot}/inbox/`;
  if (!to.startsWith(inbox)) return;
  const [recipient, name, ...rest] = to.slice(inbox.length).split("/");
  if (recipient === undefined || name === undefined || rest.length > 0 || !name.endsWith(".json")) return;
  world.ledger.published(recipient, name, fs.lstatSync(to).mtimeMs);
  const folder = `${inbox}${recipient}`;
  world.watcher.notify(folder, name);
  if (world.prng.nextFloat() < 0.15) world.watcher.notify(folder, name);
}
