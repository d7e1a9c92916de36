// The file system's answers a path's resolution needs, from this engine's RealPaths port. Whether
// names fold is a property of the repository's file system: probed once per engine, on first use.
import type { NameFolding } from "../../../ports/bus/real-paths.js";
import type { PathLookup } from "../claim-paths.js";
import type { BusContext } from "./context.js";

const probed = new WeakMap<BusContext, NameFolding>();

export function pathLookup(ctx: BusContext): PathLookup {
  let folding = probed.get(ctx);
  if (folding === undefined) {
    folding = ctx.realPaths.nameFolding(ctx.place.root);
    probed.set(ctx, folding);
  }
  const paths = ctx.realPaths;
  return {
    realpath: (path) => paths.realpath(path),
    identity: (path) => paths.identity(path),
    gitDirOf: (folder) => paths.gitDirOf(folder),
    folding,
  };
}
