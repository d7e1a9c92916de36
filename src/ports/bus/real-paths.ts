/** What a path is on this machine: claim keys are the real targets of the paths a caller names, an
 * existing file is also known by its device and inode, and a worktree nested in another is told by
 * its `.git`. */
export interface RealPaths {
  /** The path with every link resolved, or undefined when nothing exists there. */
  realpath(path: string): string | undefined;
  /** What is at `path` (links followed): its device and inode, or undefined when nothing is there. */
  identity(path: string): FileIdentity | undefined;
  /** The canonical git dir `<folder>/.git` names: that folder itself, or the `gitdir:` a `.git`
   * file points to; undefined when there is none or it cannot be read. */
  gitDirOf(folder: string): string | undefined;
  /** How the file system holding `folder` compares names: probed on the folder's own entries. */
  nameFolding(folder: string): NameFolding;
}

export interface FileIdentity {
  /** `<device>-<inode>`, both decimal: one file under every name it has (hard links). */
  id: string;
  folder: boolean;
}

/** Names a file system treats as one (macOS: `Foo.ts` is `foo.ts`, and é is é however composed). */
export interface NameFolding {
  caseFolds: boolean;
  /** Unicode-normalization-insensitive: composed and decomposed spellings name one file. */
  normalizes: boolean;
}
