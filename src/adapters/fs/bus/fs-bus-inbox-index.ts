// One reader's index of its own inbox: each file's arrival (mtime) taken once by lstat and kept by
// name (names are unique and never reused, and nothing of ours changes an mtime), and the folder
// listed incrementally, a slice per call, so a poll of an inbox of 100,000 files costs a slice, not
// a listing and 100,000 lstats. Oldest-first stays exact: a file missing from the index was not in
// the folder when the last whole pass began, so it arrived after that pass's start; a read that
// must reach that far first lists the folder whole again. A small folder is listed in one readdir.
import { err, ok, type Result } from "neverthrow";
import { messageIdOfFileName } from "../../../domain/bus/bus-message.js";
import {
  arrivalSettleMs,
  dotEntriesListedMax,
  inboxIndexedMax,
  smallInboxEntriesMax,
  smallInboxFolderBytesMax,
  smallInboxPassAgeMs,
} from "../../../domain/bus/limits.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt } from "../shared/fs-errors.js";
import { lstatIfThere } from "../shared/fs-leftovers.js";
import type { FsLike } from "../shared/fs-like.js";
import { type FsBusContext, inboxFolder, readWhole } from "./fs-bus-folders.js";

type Dir = ReturnType<FsLike["opendirSync"]>;

export interface Arrival {
  name: string;
  mtimeMs: number;
}

interface Pass {
  dir: Dir;
  /** When it began (the caller's clock, the one mtimes are stamped on). */
  startedMs: number;
  seen: Set<string>;
  dots: number;
  /** Entries read, dot-files and folders too. */
  listed: number;
}

export interface InboxIndex {
  folder: string;
  /** Regular files known, by name: their arrival. */
  byName: Map<string, number>;
  /** The message ids of those files (what is still unread, for the watch and stale notices). */
  ids: Set<string>;
  /** byName by arrival (mtime, then name); entries no longer in byName are skipped, then dropped. */
  sorted: Arrival[];
  unsorted: boolean;
  pass: Pass | undefined;
  /** Every file with an arrival before this is in the index (undefined: no whole pass yet). */
  exactBeforeMs: number | undefined;
  /** Dot-files the last whole pass passed over: never mail, counted apart. */
  dotFiles: number;
  /** The index is full (inboxIndexedMax): files past it are not known, so order is not exact. */
  full: boolean;
  /** The last whole pass: the entries it read and when it ended (the caller's clock). */
  lastPass: { listed: number; endedMs: number } | undefined;
}

/** This store's index of each inbox it reads: only the session's own inbox is read, by one
 * process (the record's owner), so the index is that reader's. */
const indexes = new WeakMap<FsBusContext, Map<string, InboxIndex>>();

export function indexOf(disk: FsBusContext, id: string): InboxIndex {
  let byId = indexes.get(disk);
  if (byId === undefined) {
    byId = new Map();
    indexes.set(disk, byId);
  }
  let index = byId.get(id);
  if (index === undefined) {
    index = newIndex(inboxFolder(disk, id));
    byId.set(id, index);
  }
  return index;
}

/** The inbox folder is not there (never made, or dropped by a prune): what the index knew is gone. */
export function noFolder(disk: FsBusContext, id: string): void {
  const index = indexes.get(disk)?.get(id);
  if (index === undefined) return;
  closePass(index);
  indexes.get(disk)?.delete(id);
}

/** The index of `id`'s inbox when this store has one. */
export function knownIndex(disk: FsBusContext, id: string): InboxIndex | undefined {
  return indexes.get(disk)?.get(id);
}

const byArrival = (a: Arrival, b: Arrival) => a.mtimeMs - b.mtimeMs || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

function newIndex(folder: string): InboxIndex {
  return {
    folder,
    byName: new Map(),
    ids: new Set(),
    sorted: [],
    unsorted: false,
    pass: undefined,
    exactBeforeMs: undefined,
    dotFiles: 0,
    full: false,
    lastPass: undefined,
  };
}

/** Closes a pass in progress (the folder is forgotten, or being listed whole again). */
function closePass(index: InboxIndex): void {
  const pass = index.pass;
  index.pass = undefined;
  if (pass !== undefined) attempt("closedir", index.folder, () => pass.dir.closeSync());
}

/** Indexes one file by its lstat (a name known already costs nothing). */
export function learn(fs: FsLike, index: InboxIndex, name: string): Result<void, StoreError> {
  if (index.byName.has(name)) return ok(undefined);
  if (index.byName.size >= inboxIndexedMax) {
    index.full = true;
    return ok(undefined);
  }
  const seen = lstatIfThere(fs, `${index.folder}/${name}`);
  if (seen.isErr()) return err(seen.error);
  if (seen.value?.isFile() !== true) return ok(undefined);
  const arrival = { name, mtimeMs: seen.value.mtimeMs };
  const last = index.sorted[index.sorted.length - 1];
  if (last !== undefined && byArrival(last, arrival) > 0) index.unsorted = true;
  index.sorted.push(arrival);
  index.byName.set(name, arrival.mtimeMs);
  const id = messageIdOfFileName(name);
  if (id !== undefined) index.ids.add(id);
  return ok(undefined);
}

/** A file that left the folder (read as gone, consumed, set aside, pruned). */
export function forget(index: InboxIndex, name: string): void {
  if (!index.byName.delete(name)) return;
  const id = messageIdOfFileName(name);
  if (id !== undefined) index.ids.delete(id);
}

function endPass(index: InboxIndex, pass: Pass, nowMs: number): void {
  closePass(index);
  for (const name of [...index.byName.keys()]) if (!pass.seen.has(name)) forget(index, name);
  index.exactBeforeMs = pass.startedMs - arrivalSettleMs;
  index.dotFiles = pass.dots;
  index.lastPass = { listed: pass.listed, endedMs: nowMs };
}

/** Whether a new pass may take the whole folder in one readdir. Node's opendir costs tens of µs of
 * its own (most of the listing of a folder of a few files, on a wake's path); a readdir cannot stop
 * at a bound. So only while the folder cannot have grown big since it was last listed: that pass
 * read few entries and ended lately (a listening watch passes every poll), and the folder's size,
 * where the file system grows it with its entries, is a small folder's. Mail that flooded in
 * meanwhile is still listed a slice per call. */
function smallFolder(index: InboxIndex, folderBytes: number | undefined, nowMs: number): boolean {
  const last = index.lastPass;
  if (last === undefined || last.listed > smallInboxEntriesMax) return false;
  const ageMs = nowMs - last.endedMs;
  return (
    ageMs >= 0 && ageMs <= smallInboxPassAgeMs && folderBytes !== undefined && folderBytes <= smallInboxFolderBytesMax
  );
}

function openPass(
  fs: FsLike,
  index: InboxIndex,
  folderBytes: number | undefined,
  nowMs: number,
): Result<Dir, StoreError> {
  if (!smallFolder(index, folderBytes, nowMs))
    return attempt("opendir", index.folder, () => fs.opendirSync(index.folder));
  return readWhole(fs, index.folder);
}

/** Lists up to `entriesMax` more entries of the folder (a new pass begins when none is in progress);
 * true when a pass ended in this call. Dot-files are counted apart and have their own bound.
 * `folderBytes`: the folder's size as its owner check just read it (undefined: not known). */
export function advance(
  fs: FsLike,
  index: InboxIndex,
  entriesMax: number,
  nowMs: number,
  folderBytes: number | undefined,
): Result<boolean, StoreError> {
  if (index.pass === undefined) {
    const opened = openPass(fs, index, folderBytes, nowMs);
    if (opened.isErr()) return err(opened.error);
    index.pass = { dir: opened.value, startedMs: nowMs, seen: new Set(), dots: 0, listed: 0 };
    index.full = false;
  }
  const pass = index.pass;
  for (let read = 0; read < entriesMax; read++) {
    const entry = attempt("readdir", index.folder, () => pass.dir.readSync());
    if (entry.isErr()) {
      closePass(index);
      return err(entry.error);
    }
    if (entry.value === null) {
      endPass(index, pass, nowMs);
      return ok(true);
    }
    pass.listed++;
    const { name } = entry.value;
    if (name.startsWith(".")) {
      // Never mail; a folder of them is read past, up to their own bound, without costing a slice.
      if (++pass.dots <= dotEntriesListedMax) read--;
      continue;
    }
    if (!entry.value.isFile()) continue;
    pass.seen.add(name);
    const added = learn(fs, index, name);
    if (added.isErr()) {
      closePass(index);
      return err(added.error);
    }
  }
  return ok(false);
}

/** A whole pass now, begun now: the index is exact for every arrival before its start. */
export function relist(
  fs: FsLike,
  index: InboxIndex,
  nowMs: number,
  folderBytes: number | undefined,
): Result<void, StoreError> {
  closePass(index);
  for (;;) {
    const done = advance(fs, index, Number.POSITIVE_INFINITY, nowMs, folderBytes);
    if (done.isErr()) return err(done.error);
    if (done.value) return ok(undefined);
  }
}

/** The known files by arrival, those that left skipped (and dropped once they are most of it). */
export function* front(index: InboxIndex): Generator<Arrival> {
  if (index.unsorted) {
    index.sorted = index.sorted.filter((a) => index.byName.get(a.name) === a.mtimeMs).sort(byArrival);
    index.unsorted = false;
  } else if (index.sorted.length > 2 * index.byName.size + 64) {
    index.sorted = index.sorted.filter((a) => index.byName.get(a.name) === a.mtimeMs);
  }
  for (const arrival of index.sorted) if (index.byName.get(arrival.name) === arrival.mtimeMs) yield arrival;
}

/** Files known that arrived at or after `expiredBeforeMs` (the ones a read may still return). */
export function liveCount(index: InboxIndex, expiredBeforeMs: number): number {
  let expired = 0;
  for (const arrival of front(index)) {
    if (arrival.mtimeMs >= expiredBeforeMs) break;
    expired++;
  }
  return index.byName.size - expired;
}
