// Every call that changes a volume, as a simulator's guards see it: the path it writes (each string
// argument of a tree change, the file behind an fd, a file opened to write) goes to `written`
// before the call runs; `after` sees each call and its result. One proxy for the bus's "nothing
// outside the bus folder" and the combined world's "nothing inside the other context's folder".
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";

/** Calls that change the tree at their path arguments (every string argument is a path). */
const pathWrites = new Set([
  "mkdirSync",
  "chmodSync",
  "renameSync",
  "unlinkSync",
  "linkSync",
  "symlinkSync",
  "rmSync",
  "rmdirSync",
  "writeFileSync",
  "appendFileSync",
  "copyFileSync",
  "utimesSync",
]);
/** Calls that change the file an fd was opened on. */
const fdWrites = new Set(["writeSync", "ftruncateSync", "fchmodSync", "futimesSync"]);
/** The access-mode bits of open(2): anything but O_RDONLY may write. */
const accessModeBits = 3;

export function guardWrites(
  fs: FsLike,
  written: (call: string, path: string) => void,
  after: (target: FsLike, call: string, args: unknown[]) => void = () => {},
): FsLike {
  const fdPaths = new Map<number, string>();
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function" || typeof key !== "string") return value;
      const call = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        // A link's source and a rename's both ends: each is a path the call changes or names.
        if (pathWrites.has(key)) for (const arg of args) if (typeof arg === "string") written(key, arg);
        if (fdWrites.has(key)) written(key, fdPaths.get(args[0] as number) ?? `fd ${args[0]}`);
        if (key === "openSync") {
          const [path, flags] = args as [string, number | string | undefined];
          const numeric = typeof flags === "number" ? flags : 0;
          const writes = typeof flags === "string" ? flags !== "r" : (numeric & accessModeBits) !== 0;
          if (writes || (numeric & target.constants.O_CREAT) !== 0) written(key, path);
        }
        const result = call.apply(target, args);
        if (key === "openSync") fdPaths.set(result as number, String(args[0]));
        if (key === "closeSync") fdPaths.delete(args[0] as number);
        after(target, key, args);
        return result;
      };
    },
  });
}
