import { realpathSync } from "node:fs";
import type { RealPaths } from "../../ports/bus/real-paths.js";

/** realpath(3) itself (.native: one system call, where the JS version lstats each segment): every link resolved; undefined when nothing exists at the path (or it cannot be read). */
export const nodeRealPaths: RealPaths = {
  realpath(path) {
    try {
      return realpathSync.native(path);
    } catch {
      return undefined;
    }
  },
};
