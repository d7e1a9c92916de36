// What both stores do with folders they take out of use and files a crashed writer left: one
// tombstone protocol and one tmp/ sweep. A folder is never deleted while a writer may still be
// renaming into it: it is first moved where no path reaches it (its tombstone), looked at there,
// and removed only while nothing waits in it; otherwise it goes back, or its contents join the
// folder a writer made anew meanwhile.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "./fs-errors.js";
import { checkFolder } from "./fs-files.js";
import type { FsLike, FsStats } from "./fs-like.js";

/** The entry's lstat, or undefined when nothing is there. */
export function lstatIfThere(fs: FsLike, path: string): Result<FsStats | undefined, StoreError> {
  const seen = attempt("lstat", path, () => fs.lstatSync(path));
  return failedWith(seen, "ENOENT") ? ok(undefined) : seen;
}

/** Unlink where an entry already gone counts as removed; `true` when this call removed it. */
export function unlinkIfThere(fs: FsLike, path: string): Result<boolean, StoreError> {
  const gone = attempt("unlink", path, () => fs.unlinkSync(path));
  return failedWith(gone, "ENOENT") ? ok(false) : gone.map(() => true);
}

function removeTree(fs: FsLike, path: string): Result<void, StoreError> {
  return attempt("rm", path, () => fs.rmSync(path, { recursive: true, force: true }));
}

/** How one store judges and empties its tombstones. */
interface TombstoneRules {
  /** Whether the tombstone may go as it is (nothing waits in it that a reader is owed). */
  removable(tomb: string): Result<boolean, StoreError>;
  /** Moves what waits in the tombstone into the folder made anew at its place. */
  merge(tomb: string, folder: string): Result<void, StoreError>;
  /** Whether, once merged, what is left in the tombstone may go. */
  emptied(tomb: string): boolean;
}

/** What became of a tombstone. */
type TombstoneFate = "none" | "removed" | "restored" | "merged" | "kept";

/** Settles the tombstone `tomb` of `folder`: removes it when the rules allow, else puts it back, or,
 * when a writer made the folder anew meanwhile, merges it into that folder and removes what is left
 * when it is emptied (else it waits for the next settle). A tombstone already gone is "none". */
export function settleTombstone(
  fs: FsLike,
  tomb: string,
  folder: string,
  rules: TombstoneRules,
): Result<TombstoneFate, StoreError> {
  const seen = checkFolder(fs, tomb);
  if (failedWith(seen, "ENOENT")) return ok("none");
  if (seen.isErr()) return err(seen.error);
  const removable = rules.removable(tomb);
  if (failedWith(removable, "ENOENT")) return ok("none");
  if (removable.isErr()) return err(removable.error);
  if (removable.value) return removeTree(fs, tomb).map(() => "removed");
  const back = attempt("rename", folder, () => fs.renameSync(tomb, folder));
  // Gone meanwhile: another settle of the same tombstone came first.
  if (back.isOk() || failedWith(back, "ENOENT")) return ok("restored");
  if (!failedWith(back, "ENOTEMPTY") && !failedWith(back, "EEXIST")) return err(back.error);
  const merged = rules.merge(tomb, folder);
  if (merged.isErr()) return err(merged.error);
  if (!rules.emptied(tomb)) return ok("kept");
  // A tombstone that would not go is found again by the next settle.
  removeTree(fs, tomb);
  return ok("merged");
}

/** Removes what crashed writers left in a tmp/ folder among `names`: files and links (never
 * followed) last changed before `beforeMs`, at most `removeMax`. A folder is handed to `onFolder`,
 * which says whether it settled it; anything else (a FIFO, a socket) is no writer's leftover and
 * stays. Returns how many entries went. */
export function sweepLeftovers(
  fs: FsLike,
  folder: string,
  names: readonly string[],
  options: {
    beforeMs: number;
    removeMax: number;
    onFolder?: (path: string, name: string) => Result<boolean, StoreError>;
  },
): Result<number, StoreError> {
  let swept = 0;
  for (const name of names) {
    if (swept >= options.removeMax) break;
    const path = `${folder}/${name}`;
    const seen = lstatIfThere(fs, path);
    if (seen.isErr()) return err(seen.error);
    if (seen.value === undefined || seen.value.mtimeMs >= options.beforeMs) continue;
    const stats = seen.value;
    const done = stats.isDirectory()
      ? (options.onFolder?.(path, name) ?? ok(false))
      : stats.isFile() || stats.isSymbolicLink()
        ? unlinkIfThere(fs, path)
        : ok(false);
    if (done.isErr()) return err(done.error);
    if (done.value) swept++;
  }
  return ok(swept);
}
