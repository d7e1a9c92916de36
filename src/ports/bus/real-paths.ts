/** The canonical form of a path on this machine: claim keys are the real targets of the paths a
 * caller names. */
export interface RealPaths {
  /** The path with every link resolved, or undefined when nothing exists there. */
  realpath(path: string): string | undefined;
}
