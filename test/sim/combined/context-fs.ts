// The cross-context invariant, checked at the call: the volume as one context (mail or bus) reaches
// it. Every call that changes the tree or a file is judged on its normalized path, and one that
// lands in the other context's folder is a violation, whichever engine or process makes it.
import { posix } from "node:path";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";

export type Context = "mail" | "bus";

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

export interface ContextWrites {
  /** Calls of this context that changed the volume (proof the guard sees the context at all). */
  count: number;
}

/** `fs` as `context` reaches it: writes inside `foreign` (the other context's folder) are pushed to
 * `violations`. */
export function contextFs(
  fs: FsLike,
  context: Context,
  foreign: string,
  violations: string[],
  writes: ContextWrites,
): FsLike {
  const fdPaths = new Map<number, string>();
  const inForeign = (path: string) => {
    const normal = posix.normalize(path);
    return normal === foreign || normal.startsWith(`${foreign}/`);
  };
  const written = (call: string, path: string) => {
    writes.count++;
    if (inForeign(path)) violations.push(`the ${context} context's ${call} wrote inside ${foreign}: ${path}`);
  };
  return new Proxy(fs, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function" || typeof key !== "string") return value;
      const call = value as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        if (pathWrites.has(key)) {
          for (const arg of args) if (typeof arg === "string") written(key, arg);
        }
        if (fdWrites.has(key)) {
          const path = fdPaths.get(args[0] as number);
          if (path !== undefined) written(key, path);
        }
        if (key === "openSync") {
          const [path, flags] = args as [string, number | string | undefined];
          const numeric = typeof flags === "number" ? flags : 0;
          const writes = typeof flags === "string" ? flags !== "r" : (numeric & accessModeBits) !== 0;
          if (writes || (numeric & target.constants.O_CREAT) !== 0) written(key, path);
        }
        const result = call.apply(target, args);
        if (key === "openSync") fdPaths.set(result as number, String(args[0]));
        if (key === "closeSync") fdPaths.delete(args[0] as number);
        return result;
      };
    },
  });
}
