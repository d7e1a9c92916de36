// Which create a claim file came from: the instance at the head of its content. A handoff records
// it when offered and the accept moves a claim only while it is still that create's, so a claim
// the sender released and made again after it offered is not taken by the old offer.
import { ok, type Result } from "neverthrow";
import type { ClaimName } from "../../../domain/bus/bus-files.js";
import { claimInstanceBytes, claimInstanceOf, encodeClaimName } from "../../../domain/bus/claim-key.js";
import { decodeUtf8 } from "../../../domain/shared/text/utf8.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { type FsBusContext, folderPath } from "./fs-bus-folders.js";

/** The instance of the claim file at `path`: undefined when it is not there, is no regular file (a
 * link is never followed) or has no instance (written by an older build). */
export function readClaimInstance(disk: FsBusContext, path: string): Result<string | undefined, StoreError> {
  const { O_RDONLY, O_NOFOLLOW, O_NONBLOCK } = disk.fs.constants;
  const opened = attempt("open", path, () => disk.fs.openSync(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK));
  if (failedWith(opened, "ENOENT") || failedWith(opened, "ELOOP") || failedWith(opened, "ENXIO")) {
    return ok(undefined);
  }
  if (opened.isErr()) return opened.map(() => undefined);
  const fd = opened.value;
  const head = new Uint8Array(claimInstanceBytes);
  const read = attempt("fstat", path, () => disk.fs.fstatSync(fd)).andThen((stats) =>
    stats.isFile()
      ? attempt("read", path, () => disk.fs.readSync(fd, head, 0, head.length, 0)).map((bytes) =>
          claimInstanceOf(decodeUtf8(head.subarray(0, bytes))),
        )
      : ok(undefined),
  );
  attempt("close", path, () => disk.fs.closeSync(fd));
  return read;
}

/** The instance of each of these path claims; a claim not there, or without one, is left out. */
export function claimInstances(
  disk: FsBusContext,
  claims: readonly ClaimName[],
): Result<Map<ClaimName, string>, StoreError> {
  const folder = folderPath(disk, "claims");
  const found = new Map<ClaimName, string>();
  for (const claim of claims) {
    const name = encodeClaimName(claim);
    if (name.isErr()) continue;
    const instance = readClaimInstance(disk, `${folder}/${name.value}`);
    if (instance.isErr()) return instance.map(() => found);
    if (instance.value !== undefined) found.set(claim, instance.value);
  }
  return ok(found);
}
