// What an observed claim adds to a claim: a mark (`!<path claim's name>`, one more link of the claim's
// file) and its time, the file's mtime, stamped at every edit of the path. The time is read only
// for a claim in someone's way, so a listing stays the whole cost of a check.
import { ok, type Result } from "neverthrow";
import type { ClaimName } from "../../../domain/bus/bus-files.js";
import { encodeClaimName, encodeMarkName } from "../../../domain/bus/claim-key.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { lstatIfThere } from "../shared/fs-leftovers.js";
import { unlinkNamed } from "./fs-bus-claims.js";
import { type FsBusContext, folderPath } from "./fs-bus-folders.js";

export function removeMarks(disk: FsBusContext, claims: readonly ClaimName[]): Result<void, StoreError> {
  return unlinkNamed(disk, claims, encodeMarkName);
}

export function claimTimes(
  disk: FsBusContext,
  claims: readonly ClaimName[],
): Result<Map<ClaimName, number>, StoreError> {
  const folder = folderPath(disk, "claims");
  const times = new Map<ClaimName, number>();
  for (const claim of claims) {
    const name = encodeClaimName(claim);
    if (name.isErr()) continue;
    const seen = lstatIfThere(disk.fs, `${folder}/${name.value}`);
    if (seen.isErr()) return seen.map(() => times);
    if (seen.value?.isFile() === true) times.set(claim, seen.value.mtimeMs);
  }
  return ok(times);
}

/** Opened without following a link and stamped through the open file, so a name swapped for a link
 * stamps nothing outside the bus. */
export function stampClaim(disk: FsBusContext, claim: ClaimName, nowMs: number): Result<boolean, StoreError> {
  const name = encodeClaimName(claim);
  if (name.isErr()) return ok(false);
  const path = `${folderPath(disk, "claims")}/${name.value}`;
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = disk.fs.constants;
  const opened = attempt("open", path, () => disk.fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  if (failedWith(opened, "ENOENT") || failedWith(opened, "ELOOP")) return ok(false);
  if (opened.isErr()) return opened.map(() => false);
  const fd = opened.value;
  const stamped = attempt("fstat", path, () => disk.fs.fstatSync(fd)).andThen((stats) => {
    if (!stats.isFile()) return ok(false);
    const at = new Date(nowMs);
    return attempt("futimes", path, () => disk.fs.futimesSync(fd, at, at)).map(() => true);
  });
  attempt("close", path, () => disk.fs.closeSync(fd));
  return stamped;
}
