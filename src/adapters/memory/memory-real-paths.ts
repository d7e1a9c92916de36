// RealPaths over a memfs volume, for the engine tests and the simulator. memfs names files exactly
// (as Linux does); a test of the folding rules says how this file system folds names instead.
import type { Volume } from "memfs";
import { gitLinkBytesMax } from "../../domain/bus/limits.js";
import type { FileIdentity, NameFolding, RealPaths } from "../../ports/bus/real-paths.js";

export const exactNames: NameFolding = { caseFolds: false, normalizes: false };

export function createMemoryRealPaths(vol: Volume, folding: NameFolding): RealPaths {
  const realpath = (path: string): string | undefined => {
    try {
      return String(vol.realpathSync(path));
    } catch {
      return undefined;
    }
  };
  // memfs: dev is always 0, and a removed node's ino is reused by the next one made (as ext4 may).
  const identity = (path: string): FileIdentity | undefined => {
    try {
      const stats = vol.statSync(path);
      return { id: `${stats.dev}-${stats.ino}`, folder: stats.isDirectory() };
    } catch {
      return undefined;
    }
  };
  const gitDirOf = (folder: string): string | undefined => {
    const dotGit = `${folder}/.git`;
    try {
      const stats = vol.lstatSync(dotGit);
      if (stats.isDirectory()) return realpath(dotGit);
      if (!stats.isFile()) return undefined;
      const head = String(vol.readFileSync(dotGit, "utf8")).slice(0, gitLinkBytesMax);
      const named = /^gitdir: *(.+?)\s*$/m.exec(head)?.[1];
      return named === undefined ? undefined : realpath(named.startsWith("/") ? named : `${folder}/${named}`);
    } catch {
      return undefined;
    }
  };
  return { realpath, identity, gitDirOf, nameFolding: () => folding };
}
