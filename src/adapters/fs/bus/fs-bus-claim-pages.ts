// claims/ listed a page at a time, for the board: a whole listing of a full claims/ holds Pi's loop
// longer than the board may, so its read gives the loop back between pages. The folder stays open
// from the first page to the last, so the pages are one listing, bounded as listClaims bounds it.
import { err, ok, type Result } from "neverthrow";
import { decodeClaimName, decodeMarkName } from "../../../domain/bus/claim-key.js";
import { claimsListedMax, claimsPageEntriesMax, dotEntriesListedMax } from "../../../domain/bus/limits.js";
import type { ClaimListing, ClaimPage, ClaimPages } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt } from "../shared/fs-errors.js";
import type { FsDirent, FsLike } from "../shared/fs-like.js";
import { type FsBusContext, folderPath, folderThere } from "./fs-bus-folders.js";

type OpenDir = ReturnType<FsLike["opendirSync"]>;

/** Files one entry into the listing as listClaims does: marks apart, names decoded once per store
 * (the memo), anything that is not a claim's regular file counted as ignored. */
export function claimVisitor(disk: FsBusContext, listing: ClaimListing): (entry: FsDirent) => void {
  const memo = disk.decodedClaims;
  // Bounded: names of claims long gone are forgotten all at once, past two full listings' worth.
  if (memo.size > 2 * claimsListedMax) memo.clear();
  return (entry) => {
    if (!entry.isFile()) {
      listing.ignored++;
      return;
    }
    if (entry.name.startsWith("!")) {
      const mark = decodeMarkName(entry.name);
      if (mark === undefined) listing.ignored++;
      else listing.marks.push(mark);
      return;
    }
    let claim = memo.get(entry.name);
    if (claim === undefined && !memo.has(entry.name)) {
      const decoded = decodeClaimName(entry.name);
      // Frozen: every listing hands out the same object.
      claim = decoded === undefined ? undefined : Object.freeze(decoded);
      memo.set(entry.name, claim);
    }
    if (claim === undefined) listing.ignored++;
    else listing.claims.push(claim);
  };
}

/** A listing with nothing left to read: every page is empty, the listing as it stands. */
function finished(listing: ClaimListing): ClaimPages {
  return { next: () => ok({ claims: [], marks: [], whole: { ...listing } }), close: () => {} };
}

export function pageClaims(disk: FsBusContext): Result<ClaimPages, StoreError> {
  const folder = folderPath(disk, "claims");
  const listing: ClaimListing = { claims: [], marks: [], ignored: 0, truncated: false };
  const there = folderThere(disk, folder);
  if (there.isErr()) return err(there.error);
  if (!there.value) return ok(finished(listing));
  const opened = attempt("opendir", folder, () => disk.fs.opendirSync(folder));
  if (opened.isErr()) return err(opened.error);
  let dir: OpenDir | undefined = opened.value;
  const visit = claimVisitor(disk, listing);
  const counts = { entries: 0, dots: 0 };
  let ended = false;
  const close = () => {
    const open = dir;
    dir = undefined;
    // A failed close changes nothing about what was read.
    if (open !== undefined) attempt("closedir", folder, () => open.closeSync());
  };
  return ok({
    next(): Result<ClaimPage, StoreError> {
      // Closed before its end (a reader that gave up): what was read, marked as not all of it.
      if (dir === undefined) {
        return ok({ claims: [], marks: [], whole: { ...listing, truncated: listing.truncated || !ended } });
      }
      const open = dir;
      const from = { claims: listing.claims.length, marks: listing.marks.length };
      const page = attempt("readdir", folder, () => readPage(open, listing, counts, visit));
      const claims = listing.claims.slice(from.claims);
      const marks = listing.marks.slice(from.marks);
      if (page.isOk() && !page.value) return ok({ claims, marks, whole: undefined });
      ended = page.isOk();
      close();
      return page.map(() => ({ claims, marks, whole: { ...listing } }));
    },
    close,
  });
}

/** Reads at most one page of entries; true when the listing ended (the folder's end, or a bound). */
function readPage(
  dir: OpenDir,
  listing: ClaimListing,
  counts: { entries: number; dots: number },
  visit: (entry: FsDirent) => void,
): boolean {
  for (let read = 0; read < claimsPageEntriesMax; read++) {
    const entry = dir.readSync();
    if (entry === null) return true;
    // Dot-files are no claims and count apart from the entries, under a bound of their own.
    if (entry.name.startsWith(".")) {
      if (++counts.dots > dotEntriesListedMax) return stopped(listing);
      continue;
    }
    if (counts.entries >= claimsListedMax) return stopped(listing);
    counts.entries++;
    visit(entry);
  }
  return false;
}

function stopped(listing: ClaimListing): true {
  listing.truncated = true;
  return true;
}
