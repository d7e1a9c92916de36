// The sender's copies of the requests a reply answers, found in one pass over sent/. A name only
// makes a file a candidate; the id inside decides, so a decoy never stands in for a copy.
import { err, ok, type Result } from "neverthrow";
import type { Address } from "../../../domain/mail/address.js";
import { decodeEnvelope } from "../../../domain/mail/envelope.js";
import { envelopeFileBytesMax, sentCandidatesPerIdMax, sentEntriesReadMax } from "../../../domain/mail/limits.js";
import type { SentCopy } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { isEntryName } from "../shared/fs-files.js";
import { readOwnEntry } from "../shared/fs-read.js";
import { boxFolder, checkBox, type FsMailContext } from "./fs-boxes.js";

/** One streamed listing of sent/ for all `ids`, ended early once each has its copy. Names are read
 * one by one and only candidates are kept, so a copy past any listing bound is found and memory
 * stays bounded by the ids asked. */
export function findSentCopies(
  disk: FsMailContext,
  address: Address,
  ids: readonly string[],
): Result<Map<string, SentCopy>, StoreError> {
  const found = new Map<string, SentCopy>();
  const wanted = new Set(ids);
  if (wanted.size === 0) return ok(found);
  const checked = checkBox(disk, address, ["sent"]);
  if (failedWith(checked, "ENOENT")) return ok(found);
  if (checked.isErr()) return err(checked.error);
  const folder = boxFolder(disk, address, "sent");
  const opened = attempt("opendir", folder, () => disk.fs.opendirSync(folder));
  if (opened.isErr()) return failedWith(opened, "ENOENT") ? ok(found) : err(opened.error);
  const dir = opened.value;
  const tried = new Map<string, number>();
  const lengths = [...new Set(ids.map((id) => id.length))];
  const scanned = attempt("readdir", folder, () => {
    for (let seen = 0; seen < sentEntriesReadMax && wanted.size > 0; seen++) {
      const entry = dir.readSync();
      if (entry === null) return;
      for (const id of idsNamedBy(entry.name, wanted, lengths)) {
        // Each candidate costs a read: a flood of decoys for one id stops at the bound.
        const attempts = tried.get(id) ?? 0;
        if (attempts >= sentCandidatesPerIdMax) continue;
        tried.set(id, attempts + 1);
        const copy = readCopy(disk, `${folder}/${entry.name}`, id, address);
        if (copy === undefined) continue;
        found.set(id, copy);
        wanted.delete(id);
      }
    }
  });
  // A failed close changes nothing about what was read.
  attempt("closedir", folder, () => dir.closeSync());
  return scanned.map(() => found);
}

/** The asked ids a name could hold by the naming convention, `<time>-<id>.json`, or a bare
 * `<id>.json` from another implementation. Ids may contain `-`, so the name is cut at each asked
 * id's length from its end: one slice per distinct length, as this runs for every entry of sent/. */
function idsNamedBy(name: string, wanted: ReadonlySet<string>, lengths: readonly number[]): string[] {
  if (!name.endsWith(".json")) return [];
  const stemEnd = name.length - ".json".length;
  const ids: string[] = [];
  for (const length of lengths) {
    const start = stemEnd - length;
    if (start < 0 || (start > 0 && name[start - 1] !== "-")) continue;
    const id = name.slice(start, stemEnd);
    if (wanted.has(id)) ids.push(id);
  }
  return ids.length > 0 && isEntryName(name) ? ids : [];
}

/** A copy only if it is a regular file of this user within the bound (never through a link, never
 * waiting on a FIFO) holding an envelope with this id, sent by this address. Anything else, a file
 * that cannot be read included, is no copy, and the scan goes on. */
function readCopy(disk: FsMailContext, path: string, id: string, address: Address): SentCopy | undefined {
  const read = readOwnEntry(disk.fs, path, envelopeFileBytesMax, disk.uid);
  if (read.isErr() || read.value.kind !== "text") return undefined;
  const decoded = decodeEnvelope(read.value.text);
  if (decoded.isErr() || decoded.value.id !== id || decoded.value.from !== address) return undefined;
  return { path, envelope: decoded.value };
}
