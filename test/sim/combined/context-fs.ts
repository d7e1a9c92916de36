// The cross-context invariant, checked at the call: the volume as one context (mail or bus) reaches
// it. Every call that changes the tree or a file is judged on its normalized path, and one that
// lands in the other context's folder is a violation, whichever engine or process makes it.
import { posix } from "node:path";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { guardWrites } from "../shared/write-guard.js";

export type Context = "mail" | "bus";

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
  const inForeign = (path: string) => {
    const normal = posix.normalize(path);
    return normal === foreign || normal.startsWith(`${foreign}/`);
  };
  return guardWrites(fs, (call, path) => {
    writes.count++;
    if (inForeign(path)) violations.push(`the ${context} context's ${call} wrote inside ${foreign}: ${path}`);
  });
}
