import { realpathSync, statSync } from "node:fs";
import type { RealPaths } from "../../ports/bus/real-paths.js";

/** realpath(3) itself (.native: one system call, where the JS version lstats each segment): every
 * link resolved; undefined when nothing exists at the path (or it cannot be read). A claim's path
 * often does not exist yet and is walked up from: a stat that answers "not there" without throwing
 * comes first, since each thrown error costs more than the system call. */
export const nodeRealPaths: RealPaths = {
  realpath(path) {
    try {
      if (statSync(path, { throwIfNoEntry: false }) === undefined) return undefined;
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  },
};
