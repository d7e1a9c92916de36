// The volume as every bus process sees it: each write's path is checked against the bus folder
// (nothing is written outside it), each message renamed into an inbox is noted as published, with
// its mtime, and raises a watcher hint as inotify would (late, sometimes dropped, sometimes twice).
import { posix } from "node:path";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import type { BusWorld } from "./bus-world.js";

/** Calls that change the tree at their path arguments (every string argument is a path). */
const pathWrites = new Set(["mkdirSync", "chmodSync", "renameSync", "unlinkSync", "linkSync", "rmSync"]);
/** Calls that change the file an fd was opened on. */
const fdWrites = new Set(["writeSync", "ftruncateSync", "fsyncSync"]);
/** The access-mode bits of open(2): anything but O_RDONLY may write. */
const accessModeBits = 3;

export function recordingFs(fs: FsLike, world: BusWorld): FsLike {
  const fdPaths = new Map<number, string>();
  // Judged on the normalized path: `<bus>/../x` is outside, however it is spelled.
  const inside = (path: string) => {
    const normal = posix.normalize(path);
    return normal === world.busRoot || normal.startsWith(`${world.busRoot}/`);
  };
  const written = (call: string, path: string) => {
    if (!inside(path)) world.violations.push(`${call} wrote outside the bus folder: ${path}`);
  };
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function" || typeof key !== "string") return value;
      const call = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (pathWrites.has(key)) {
          // A link's source and a rename's both ends: each is a path the call changes or names.
          for (const arg of args) if (typeof arg === "string") written(key, arg);
        }
        if (fdWrites.has(key) && key !== "fsyncSync") written(key, fdPaths.get(args[0] as number) ?? `fd ${args[0]}`);
        if (key === "openSync") {
          const [path, flags] = args as [string, number];
          const writes = (flags & accessModeBits) !== 0 || (flags & target.constants.O_CREAT) !== 0;
          if (writes) written(key, path);
        }
        const result = call.apply(target, args);
        if (key === "openSync") fdPaths.set(result as number, args[0] as string);
        if (key === "closeSync") fdPaths.delete(args[0] as number);
        if (key === "renameSync") published(target, world, args[1] as string);
        return result;
      };
    },
  });
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
