// `<address>/owner.json`: which process owns an address's inbox. Two processes on one session id
// (`pi -c` in two panes) would share one claim journal and lose what the other claimed; the one
// that holds this file claims, the other only sends. Taken by an exclusive link (never replaced
// by a rename, which would let two both win), and taken over only from a holder judged gone.
import { err, ok, type Result } from "neverthrow";
import type { Address } from "../../../domain/mail/address.js";
import { runningRecordBytesMax } from "../../../domain/mail/limits.js";
import type { OwnerClaim } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { assertEntryName, removeQuietly, writeAtomic } from "../shared/fs-files.js";
import { readEntry } from "../shared/fs-read.js";
import { addressFolder, ensureBox, type FsMailContext } from "./fs-boxes.js";

export const ownerName = "owner.json";

function ownerPath(disk: FsMailContext, address: Address): string {
  return `${addressFolder(disk, address)}/${ownerName}`;
}

/** The temp file of one attempt, in tmp/ (swept like any leftover); `token` is the caller's unique id. */
function tmpPath(disk: FsMailContext, address: Address, token: string, what: string): string {
  assertEntryName(token);
  return `${addressFolder(disk, address)}/tmp/owner-${what}-${token}.json`;
}

/** Writes `text` as the owner record unless one is there: then says what it holds. */
export function claimOwner(
  disk: FsMailContext,
  address: Address,
  token: string,
  text: string,
): Result<OwnerClaim, StoreError> {
  const ready = ensureBox(disk, address, ["tmp"]);
  if (ready.isErr()) return err(ready.error);
  const draft = tmpPath(disk, address, token, "draft");
  const written = writeAtomic(disk.fs, {
    tmpPath: `${draft}.part`,
    finalPath: draft,
    text,
    durable: false,
    syncFolder: undefined,
    replaceLeftover: true,
  });
  if (written.isErr()) return err(written.error);
  const final = ownerPath(disk, address);
  const linked = attempt("link", final, () => disk.fs.linkSync(draft, final));
  removeQuietly(disk.fs, draft);
  if (linked.isOk()) return ok({ kind: "owned" });
  if (!failedWith(linked, "EEXIST")) return err(linked.error);
  return readOwner(disk, address).map((held): OwnerClaim => ({ kind: "held", text: held ?? "" }));
}

/** The owner record's text, or undefined when there is none (a link or a folder there reads as
 * an unreadable record: held by nobody the caller can judge, so the caller stays a guest). */
export function readOwner(disk: FsMailContext, address: Address): Result<string | undefined, StoreError> {
  return readEntry(disk.fs, ownerPath(disk, address), runningRecordBytesMax).map((found) => {
    if (found.kind === "gone") return undefined;
    return found.kind === "text" ? found.text : "";
  });
}

/** Takes the record over from a holder judged gone, while it still holds `staleText`: the record
 * is moved out of the way first (one mover wins), compared, and put back when it changed meanwhile. */
export function replaceOwner(
  disk: FsMailContext,
  address: Address,
  staleText: string,
  token: string,
  text: string,
): Result<OwnerClaim, StoreError> {
  const final = ownerPath(disk, address);
  const aside = tmpPath(disk, address, token, "stale");
  const moved = attempt("rename", final, () => disk.fs.renameSync(final, aside));
  if (moved.isErr() && !failedWith(moved, "ENOENT")) return err(moved.error);
  if (moved.isOk()) {
    const seen = readEntry(disk.fs, aside, runningRecordBytesMax);
    const same = seen.isOk() && seen.value.kind === "text" && seen.value.text === staleText;
    // A record that changed since it was judged is a live holder's: it goes back where it was.
    if (!same) attempt("link", final, () => disk.fs.linkSync(aside, final));
    removeQuietly(disk.fs, aside);
    if (!same) return readOwner(disk, address).map((held): OwnerClaim => ({ kind: "held", text: held ?? "" }));
  }
  return claimOwner(disk, address, token, text);
}

/** Removes the owner record while it still holds `text` (at shutdown of its owner). */
export function releaseOwner(disk: FsMailContext, address: Address, text: string): Result<void, StoreError> {
  const held = readOwner(disk, address);
  if (held.isErr()) return err(held.error);
  if (held.value !== text) return ok(undefined);
  const removed = attempt("unlink", ownerPath(disk, address), () => disk.fs.unlinkSync(ownerPath(disk, address)));
  return failedWith(removed, "ENOENT") ? ok(undefined) : removed;
}
