// What ages out of the bus folder: inbox files past the message TTL (dot-files and shown mail set
// aside too), the empty inbox of a pruned session, a crashed writer's leftovers in tmp/, and
// dot-files of sessions/ and claims/ past the message TTL. An inbox is dropped without a window in which
// a message could be deleted unseen: it is moved into tmp/ first (a sender's rename then fails and
// is retried into a new folder), and removed only if it is empty once no path reaches it.
import { err, ok, type Result } from "neverthrow";
import type { BusMessage } from "../../../domain/bus/bus-files.js";
import { isBusId } from "../../../domain/bus/claim-key.js";
import {
  asideListedMax,
  claimsListedMax,
  inboxEntriesMax,
  messageTtlMs,
  recordsListedMax,
  tmpLeftoverAgeMs,
  tmpSweepEntriesMax,
} from "../../../domain/bus/limits.js";
import type { InboxPruned } from "../../../ports/bus/bus-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { lstatIfThere, settleTombstone, sweepLeftovers, unlinkIfThere } from "../shared/fs-leftovers.js";
import { asideFolderName } from "./fs-bus-aside.js";
import {
  ensureOwn,
  type FsBusContext,
  folderPath,
  folderThere,
  inboxFolder,
  scanFolder,
  tmpName,
} from "./fs-bus-folders.js";
import { readArrival } from "./fs-bus-inbox.js";
import { forgetTurn, takeTurn } from "./fs-bus-prune-turn.js";

const tombPrefix = "inbox~";

/** Unlinks `path` when it is no folder (a link is removed, never followed) last changed before
 * `beforeMs`: "removed" (a regular file), "removed-other", "left" (a regular file kept), or "skipped". */
function expire(
  disk: FsBusContext,
  path: string,
  beforeMs: number,
  /** Called with its mtime just before a regular file is removed. */
  expiring?: (mtimeMs: number) => void,
): Result<"removed" | "removed-other" | "left" | "skipped", StoreError> {
  const seen = lstatIfThere(disk.fs, path);
  if (seen.isErr()) return err(seen.error);
  if (seen.value === undefined || seen.value.isDirectory()) return ok("skipped");
  if (seen.value.mtimeMs >= beforeMs) return ok(seen.value.isFile() ? "left" : "skipped");
  const file = seen.value.isFile();
  if (file) expiring?.(seen.value.mtimeMs);
  return unlinkIfThere(disk.fs, path).map((gone) => (!gone ? "skipped" : file ? "removed" : "removed-other"));
}

const emptyPrune = (): InboxPruned => ({ removed: 0, left: { files: 0, atLeast: false }, looked: 0, expired: [] });

/** Unlinks entries but folders last changed before `beforeMs`, dot-files and shown mail set aside
 * included, looking at no more than `looksMax` of them (the rest wait for the next prune); then,
 * asked to, drops the folder once it is empty. What is left is counted from the listing's own
 * types, less what went: no lstat for a count. */
export function pruneInbox(
  disk: FsBusContext,
  id: string,
  beforeMs: number,
  dropEmpty: boolean,
  looksMax: number,
): Result<InboxPruned, StoreError> {
  const folder = inboxFolder(disk, id);
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) {
    forgetTurn(disk, folder);
    forgetTurn(disk, `${folder}/${asideFolderName}`);
    return there.map(() => emptyPrune());
  }
  const names: string[] = [];
  let files = 0;
  const scanned = scanFolder(
    disk.fs,
    folder,
    inboxEntriesMax,
    (entry) => {
      if (entry.isFile()) files++;
      if (!entry.isDirectory() || entry.isSymbolicLink()) names.push(entry.name);
    },
    (entry) => {
      if (entry.name !== asideFolderName) names.push(entry.name);
    },
  );
  if (scanned.isErr()) return err(scanned.error);
  let removed = 0;
  let filesRemoved = 0;
  const expired: BusMessage[] = [];
  // A message about to expire unread is read first: its sender is told what was never read.
  const readBeforeRemoving = (name: string) => (mtimeMs: number) => {
    if (name.startsWith(".")) return;
    const entry = readArrival(disk, folder, id, { name, mtimeMs });
    if (entry.isOk() && entry.value?.kind === "message") expired.push(entry.value.message);
  };
  // Nothing expires while the clock is in doubt (the cutoff is -Infinity): nothing to look at.
  const turn = beforeMs === Number.NEGATIVE_INFINITY ? [] : takeTurn(disk, folder, names, looksMax);
  for (const name of turn) {
    const done = expire(disk, `${folder}/${name}`, beforeMs, readBeforeRemoving(name));
    if (done.isErr()) return err(done.error);
    const gone = done.value === "removed" || done.value === "removed-other";
    if (gone && !name.startsWith(".")) removed++;
    if (done.value === "removed" && !name.startsWith(".")) filesRemoved++;
  }
  const aside = pruneAside(disk, `${folder}/${asideFolderName}`, beforeMs, looksMax - turn.length);
  if (aside.isErr()) return err(aside.error);
  const pruned = {
    removed,
    left: { files: Math.max(0, files - filesRemoved), atLeast: scanned.value },
    looked: turn.length + aside.value,
    expired,
  };
  if (!dropEmpty) return ok(pruned);
  return dropInbox(disk, id).map(() => pruned);
}

/** Shown mail set aside past the TTL: whatever its reader's session recorded, it has expired. Looks
 * at no more than `looksMax` entries; says how many it looked at. */
function pruneAside(
  disk: FsBusContext,
  folder: string,
  beforeMs: number,
  looksMax: number,
): Result<number, StoreError> {
  if (looksMax <= 0 || beforeMs === Number.NEGATIVE_INFINITY) return ok(0);
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) {
    forgetTurn(disk, folder);
    return there.map(() => 0);
  }
  const names: string[] = [];
  const scanned = scanFolder(disk.fs, folder, asideListedMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  // `<reader pid>~<message file>`: each reader's oldest first.
  const turn = takeTurn(disk, folder, names, looksMax);
  for (const name of turn) {
    const done = expire(disk, `${folder}/${name}`, beforeMs);
    if (done.isErr()) return err(done.error);
  }
  return ok(turn.length);
}

/** No entry but an empty aside folder: the inbox holds nothing (a dot-file keeps it, as ever). */
function isEmptyFolder(disk: FsBusContext, path: string): Result<boolean, StoreError> {
  const opened = attempt("opendir", path, () => disk.fs.opendirSync(path));
  if (opened.isErr()) return err(opened.error);
  const dir = opened.value;
  const looked = attempt("readdir", path, () => {
    for (;;) {
      const entry = dir.readSync();
      if (entry === null) return { empty: true, aside: false };
      if (entry.name !== asideFolderName || !entry.isDirectory()) return { empty: false, aside: false };
      const inner = disk.fs.opendirSync(`${path}/${asideFolderName}`);
      const first = inner.readSync();
      inner.closeSync();
      if (first !== null) return { empty: false, aside: true };
    }
  });
  attempt("closedir", path, () => dir.closeSync());
  return looked.map((l) => l.empty);
}

function dropInbox(disk: FsBusContext, id: string): Result<void, StoreError> {
  const folder = inboxFolder(disk, id);
  const empty = isEmptyFolder(disk, folder);
  if (failedWith(empty, "ENOENT")) return ok(undefined);
  if (empty.isErr() || !empty.value) return empty.map(() => undefined);
  const ready = ensureOwn(disk, folderPath(disk, "tmp"));
  if (ready.isErr()) return err(ready.error);
  const tomb = tmpName(disk, `${tombPrefix}${id}`);
  const moved = attempt("rename", folder, () => disk.fs.renameSync(folder, tomb));
  if (failedWith(moved, "ENOENT")) return ok(undefined);
  if (moved.isErr()) return err(moved.error);
  return settleTomb(disk, tomb, id);
}

/** Removes an inbox moved into tmp/ when it is empty; else puts it back, or, when a sender made the
 * inbox anew meanwhile, moves its files into the new one (names are unique). */
function settleTomb(disk: FsBusContext, tomb: string, id: string): Result<void, StoreError> {
  return settleTombstone(disk.fs, tomb, inboxFolder(disk, id), {
    removable: (at) => isEmptyFolder(disk, at),
    merge: (at, folder) => mergeInbox(disk, at, folder),
    emptied: (at) => leftEmpty(disk, at),
  }).map(() => undefined);
}

function mergeInbox(disk: FsBusContext, tomb: string, folder: string): Result<void, StoreError> {
  const names: string[] = [];
  const scanned = scanFolder(disk.fs, tomb, inboxEntriesMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  for (const name of names) {
    const merged = attempt("rename", name, () => disk.fs.renameSync(`${tomb}/${name}`, `${folder}/${name}`));
    if (merged.isErr()) return err(merged.error);
  }
  return mergeAside(disk, tomb, folder);
}

/** What is left after a merge is dot-files, never mail, or entries past the bound (the next sweep
 * moves them): only a tombstone with nothing but dot-files goes. */
function leftEmpty(disk: FsBusContext, tomb: string): boolean {
  let leftover = false;
  const left = scanFolder(disk.fs, tomb, inboxEntriesMax, () => {
    leftover = true;
  });
  return left.isOk() && !left.value && !leftover;
}

/** Shown mail set aside in a moved inbox joins the new inbox's aside folder (names are unique). */
function mergeAside(disk: FsBusContext, tomb: string, folder: string): Result<void, StoreError> {
  const from = `${tomb}/${asideFolderName}`;
  const there = folderThere(disk, from);
  if (there.isErr() || !there.value) return there.map(() => undefined);
  const names: string[] = [];
  const scanned = scanFolder(disk.fs, from, asideListedMax, (entry) => names.push(entry.name));
  if (scanned.isErr() || names.length === 0) return scanned.map(() => undefined);
  const to = `${folder}/${asideFolderName}`;
  const ready = ensureOwn(disk, to);
  if (ready.isErr()) return err(ready.error);
  for (const name of names) {
    const moved = attempt("rename", name, () => disk.fs.renameSync(`${from}/${name}`, `${to}/${name}`));
    if (moved.isErr()) return err(moved.error);
  }
  return ok(undefined);
}

/** When each store last swept the dot-files of sessions/ and claims/: once an hour is plenty for
 * files nothing reads, and a status need not list both folders again every time. */
const dotsSweptMs = new WeakMap<FsBusContext, number>();

/** Dot-files of sessions/ and claims/ past the message TTL: never data, never read, but each one
 * costs every listing a step. Folders among them are left alone. */
function sweepDotFiles(disk: FsBusContext, nowMs: number): Result<void, StoreError> {
  const last = dotsSweptMs.get(disk);
  if (last !== undefined && last <= nowMs && nowMs - last < tmpLeftoverAgeMs) return ok(undefined);
  dotsSweptMs.set(disk, nowMs);
  const folders = [
    { path: folderPath(disk, "sessions"), entriesMax: recordsListedMax },
    { path: folderPath(disk, "claims"), entriesMax: claimsListedMax },
  ];
  for (const { path, entriesMax } of folders) {
    const there = folderThere(disk, path);
    if (there.isErr()) return err(there.error);
    if (!there.value) continue;
    const dots: string[] = [];
    const scanned = scanFolder(
      disk.fs,
      path,
      entriesMax,
      () => {},
      (entry) => dots.push(entry.name),
    );
    if (scanned.isErr()) return err(scanned.error);
    for (const name of dots) {
      const done = expire(disk, `${path}/${name}`, nowMs - messageTtlMs);
      if (done.isErr()) return err(done.error);
    }
  }
  return ok(undefined);
}

/** Removes what crashed writers left in tmp/ (files and links last changed before `nowMs -
 * olderThanMs`, never through a link) and settles inboxes a crashed prune left there. At most
 * tmpSweepEntriesMax entries a call. Returns how many entries it removed or settled. */
export function sweepTmp(disk: FsBusContext, nowMs: number, olderThanMs: number): Result<number, StoreError> {
  const dots = sweepDotFiles(disk, nowMs);
  if (dots.isErr()) return err(dots.error);
  const folder = folderPath(disk, "tmp");
  const there = folderThere(disk, folder);
  if (there.isErr() || !there.value) return there.map(() => 0);
  const names: string[] = [];
  const scanned = scanFolder(disk.fs, folder, tmpSweepEntriesMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  return sweepLeftovers(disk.fs, folder, names, {
    beforeMs: nowMs - olderThanMs,
    removeMax: tmpSweepEntriesMax,
    onFolder: (path, name) => settleLeftFolder(disk, path, name),
  });
}

/** A folder in tmp/ is only ever an inbox a prune moved there: `inbox~<id>~<uuid>`. */
function settleLeftFolder(disk: FsBusContext, path: string, name: string): Result<boolean, StoreError> {
  const [prefix, id] = name.split("~");
  if (`${prefix}~` !== tombPrefix || id === undefined || !isBusId(id)) return ok(false);
  return settleTomb(disk, path, id).map(() => true);
}
