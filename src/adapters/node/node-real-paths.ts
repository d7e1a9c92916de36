import { realpathSync } from "node:fs";
import type { RealPaths } from "../../ports/bus/real-paths.js";

/** realpath(3): every link resolved; undefined when nothing exists at the path (or it cannot be read). */
export const nodeRealPaths: RealPaths = {
  realpath(path) {
    try {
      return realpathSync(path);
    } catch {
      return undefined;
    }
  },
};
