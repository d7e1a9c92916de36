// `offers/<id>.json`: a handoff's offer of claims, published whole (a temp file renamed into place),
// read bounded and never followed through a link; and the move of one claim to its new holder, in
// which a rename is the one step that changes who holds the key.
import { err, ok, type Result } from "neverthrow";
import type { ClaimName, HandoffOffer } from "../../../domain/bus/bus-files.js";
import { encodeClaimName, encodeMarkName, isBusId } from "../../../domain/bus/claim-key.js";
import { offerBytesMax, offersListedMax } from "../../../domain/bus/limits.js";
import { decodeOffer, encodeOffer } from "../../../domain/bus/offers.js";
import type { StoredOffer } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { removeQuietly, writeAtomic } from "../shared/fs-files.js";
import { lstatIfThere, unlinkIfThere } from "../shared/fs-leftovers.js";
import { readOwnEntry } from "../shared/fs-read.js";
import { readClaimInstance } from "./fs-bus-claim-instance.js";
import { ensureOwn, type FsBusContext, folderPath, folderThere, scanFolder, tmpName } from "./fs-bus-folders.js";

const suffix = ".json";

function offerPath(disk: FsBusContext, id: string): string {
  if (!isBusId(id)) throw new Error(`not a bus id: ${JSON.stringify(id)}`);
  return `${folderPath(disk, "offers")}/${id}${suffix}`;
}

export function writeOffer(disk: FsBusContext, offer: HandoffOffer): Result<void, StoreError> {
  const text = encodeOffer(offer);
  return ensureOwn(disk, folderPath(disk, "offers"))
    .andThen(() => ensureOwn(disk, folderPath(disk, "tmp")))
    .andThen(() =>
      writeAtomic(disk.fs, {
        tmpPath: tmpName(disk, `offer~${offer.id}`, suffix),
        finalPath: offerPath(disk, offer.id),
        text,
        // An offer means nothing after a reboot (both sides are gone): no fsync.
        durable: false,
        syncFolder: undefined,
        replaceLeftover: false,
      }),
    )
    .map(() => undefined);
}

/** The offer of this id and when it was made (its file's mtime), or undefined: none, or not one
 * this build reads (left for the prune's TTL). */
export function readOffer(disk: FsBusContext, id: string): Result<StoredOffer | undefined, StoreError> {
  if (!isBusId(id)) return ok(undefined);
  const there = folderThere(disk, folderPath(disk, "offers"));
  if (there.isErr() || !there.value) return there.map(() => undefined);
  const path = offerPath(disk, id);
  const read = readOwnEntry(disk.fs, path, offerBytesMax, disk.uid);
  if (read.isErr()) return err(read.error);
  if (read.value.kind !== "text") return ok(undefined);
  const offer = decodeOffer(read.value.text, id);
  if (offer.isErr()) return ok(undefined);
  return lstatIfThere(disk.fs, path).map((stats) =>
    stats === undefined ? undefined : { offer: offer.value, madeMs: stats.mtimeMs },
  );
}

/** Every offer that reads, at most offersListedMax; an entry that is not one is skipped. */
export function listOffers(disk: FsBusContext): Result<StoredOffer[], StoreError> {
  const folder = folderPath(disk, "offers");
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => []);
  const ids: string[] = [];
  const scanned = scanFolder(disk.fs, folder, offersListedMax, (entry) => {
    const id = entry.name.slice(0, -suffix.length);
    if (entry.isFile() && entry.name.endsWith(suffix) && isBusId(id)) ids.push(id);
  });
  if (scanned.isErr()) return err(scanned.error);
  const offers: StoredOffer[] = [];
  for (const id of ids) {
    const read = readOffer(disk, id);
    if (read.isErr()) return err(read.error);
    if (read.value !== undefined) offers.push(read.value);
  }
  return ok(offers);
}

export function removeOffer(disk: FsBusContext, id: string): Result<void, StoreError> {
  if (!isBusId(id)) return ok(undefined);
  const there = folderThere(disk, folderPath(disk, "offers"));
  if (there.isErr() || !there.value) return there.map(() => undefined);
  return unlinkIfThere(disk.fs, offerPath(disk, id)).map(() => undefined);
}

/**
 * Moves one claim to `to`: each identity claim is linked under the new holder first (it holds
 * nothing yet: an identity claim counts only beside its path claim), then the path claim is renamed
 * (the one step: before it the sender holds the key and the file, after it the recipient does, and
 * no reader sees both or neither), then the sender's identity claims and mark go (they hold nothing
 * now). A crash between steps leaves the key with exactly one of them. False when the sender's path
 * claim was gone already, or (given the `instance` offered) is no longer the claim offered: made
 * again after a release. That is looked at before the rename and, since the sender may release and
 * claim again in between, after it too: a claim moved that was not the one offered goes back.
 */
export function moveClaim(
  disk: FsBusContext,
  path: ClaimName,
  identities: readonly ClaimName[],
  to: { owner: string; joinToken: string },
  instance: string | undefined,
): Result<boolean, StoreError> {
  const folder = folderPath(disk, "claims");
  const name = (claim: ClaimName) => encodeClaimName(claim).map((n) => `${folder}/${n}`);
  const from = name(path);
  const into = name({ key: path.key, ...to });
  if (from.isErr() || into.isErr()) return ok(false);
  const offered = (at: string) =>
    instance === undefined ? ok(true) : readClaimInstance(disk, at).map((seen) => seen === instance);
  const before = offered(from.value);
  if (before.isErr() || !before.value) return before.map(() => false);
  const made: string[] = [];
  for (const identity of identities) {
    const source = name(identity);
    const target = name({ ...identity, ...to });
    if (source.isErr() || target.isErr()) continue;
    const linked = attempt("link", target.value, () => disk.fs.linkSync(source.value, target.value));
    if (linked.isOk() || failedWith(linked, "EEXIST")) made.push(target.value);
    else if (!failedWith(linked, "ENOENT")) return undo(disk, made, linked.error);
  }
  const renamed = attempt("rename", into.value, () => disk.fs.renameSync(from.value, into.value));
  if (failedWith(renamed, "ENOENT")) {
    for (const path of made) removeQuietly(disk.fs, path);
    return ok(false);
  }
  if (renamed.isErr()) return undo(disk, made, renamed.error);
  const after = offered(into.value);
  if (after.isOk() && !after.value) {
    attempt("rename", from.value, () => disk.fs.renameSync(into.value, from.value));
    for (const path of made) removeQuietly(disk.fs, path);
    return ok(false);
  }
  for (const identity of identities) {
    const source = name(identity);
    if (source.isOk()) unlinkIfThere(disk.fs, source.value);
  }
  const mark = encodeMarkName(path);
  if (mark.isOk()) unlinkIfThere(disk.fs, `${folder}/${mark.value}`);
  return ok(true);
}

function undo(disk: FsBusContext, made: readonly string[], error: StoreError): Result<never, StoreError> {
  for (const path of made) removeQuietly(disk.fs, path);
  return err(error);
}
