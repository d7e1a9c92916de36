// What ages out of the bus folder: inbox files past the message TTL, the empty inbox of a pruned
// session, and a crashed writer's leftovers in tmp/. An inbox is dropped without a window in which
// a message could be deleted unseen: it is moved into tmp/ first (a sender's rename then fails and
// is retried into a new folder), and removed only if it is empty once no path reaches it.
import { err, ok, type Result } from "neverthrow";
import { isBusId } from "../../../domain/bus/claim-key.js";
import { inboxEntriesMax, tmpSweepEntriesMax } from "../../../domain/bus/limits.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import {
  type BusContext,
  ensureOwn,
  folderPath,
  folderThere,
  inboxFolder,
  lstatIfThere,
  scanFolder,
  tmpName,
  unlinkIfThere,
} from "./fs-bus-folders.js";

const tombPrefix = "inbox~";

/** Unlinks every entry but folders (a link is removed, never followed) last changed before
 * `beforeMs`; then, asked to, drops the folder once it is empty. */
export function pruneInbox(
  ctx: BusContext,
  id: string,
  beforeMs: number,
  dropEmpty: boolean,
): Result<{ removed: number; left: number }, StoreError> {
  const folder = inboxFolder(ctx, id);
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => ({ removed: 0, left: 0 }));
  const names: string[] = [];
  const scanned = scanFolder(ctx.fs, folder, inboxEntriesMax, (entry) => {
    if (!entry.isDirectory() || entry.isSymbolicLink()) names.push(entry.name);
  });
  if (scanned.isErr()) return err(scanned.error);
  let removed = 0;
  let left = 0;
  for (const name of names) {
    const path = `${folder}/${name}`;
    const seen = lstatIfThere(ctx.fs, path);
    if (seen.isErr()) return err(seen.error);
    if (seen.value === undefined || seen.value.isDirectory()) continue;
    if (seen.value.mtimeMs >= beforeMs) {
      if (seen.value.isFile()) left++;
      continue;
    }
    const gone = unlinkIfThere(ctx.fs, path);
    if (gone.isErr()) return err(gone.error);
    if (gone.value) removed++;
  }
  if (!dropEmpty) return ok({ removed, left });
  return dropInbox(ctx, id).map(() => ({ removed, left }));
}

function isEmptyFolder(ctx: BusContext, path: string): Result<boolean, StoreError> {
  const opened = attempt("opendir", path, () => ctx.fs.opendirSync(path));
  if (opened.isErr()) return err(opened.error);
  const dir = opened.value;
  const first = attempt("readdir", path, () => dir.readSync());
  attempt("closedir", path, () => dir.closeSync());
  return first.map((entry) => entry === null);
}

function dropInbox(ctx: BusContext, id: string): Result<void, StoreError> {
  const folder = inboxFolder(ctx, id);
  const empty = isEmptyFolder(ctx, folder);
  if (failedWith(empty, "ENOENT")) return ok(undefined);
  if (empty.isErr() || !empty.value) return empty.map(() => undefined);
  const ready = ensureOwn(ctx, folderPath(ctx, "tmp"));
  if (ready.isErr()) return err(ready.error);
  const tomb = tmpName(ctx, `${tombPrefix}${id}`);
  const moved = attempt("rename", folder, () => ctx.fs.renameSync(folder, tomb));
  if (failedWith(moved, "ENOENT")) return ok(undefined);
  if (moved.isErr()) return err(moved.error);
  return settleTomb(ctx, tomb, id);
}

/** Removes an inbox moved into tmp/ when it is empty; else puts it back, or, when a sender made the
 * inbox anew meanwhile, moves its files into the new one (names are unique). */
function settleTomb(ctx: BusContext, tomb: string, id: string): Result<void, StoreError> {
  const empty = isEmptyFolder(ctx, tomb);
  if (empty.isErr()) return failedWith(empty, "ENOENT") ? ok(undefined) : err(empty.error);
  if (empty.value) return attempt("rm", tomb, () => ctx.fs.rmSync(tomb, { recursive: true, force: true }));
  const folder = inboxFolder(ctx, id);
  const back = attempt("rename", folder, () => ctx.fs.renameSync(tomb, folder));
  if (back.isOk() || failedWith(back, "ENOENT")) return ok(undefined);
  if (!failedWith(back, "ENOTEMPTY") && !failedWith(back, "EEXIST")) return err(back.error);
  const names: string[] = [];
  const scanned = scanFolder(ctx.fs, tomb, inboxEntriesMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  for (const name of names) {
    const merged = attempt("rename", name, () => ctx.fs.renameSync(`${tomb}/${name}`, `${folder}/${name}`));
    if (merged.isErr()) return err(merged.error);
  }
  // What is left is dot-files, never mail (or entries past the bound: the next sweep moves them).
  let leftover = false;
  const left = scanFolder(ctx.fs, tomb, inboxEntriesMax, () => {
    leftover = true;
  });
  if (left.isErr()) return err(left.error);
  if (leftover || left.value) return ok(undefined);
  return attempt("rm", tomb, () => ctx.fs.rmSync(tomb, { recursive: true, force: true }));
}

/** Removes what crashed writers left in tmp/ (files and links last changed before `nowMs -
 * olderThanMs`, never through a link) and settles inboxes a crashed prune left there. At most
 * tmpSweepEntriesMax entries a call. Returns how many entries it removed or settled. */
export function sweepTmp(ctx: BusContext, nowMs: number, olderThanMs: number): Result<number, StoreError> {
  const folder = folderPath(ctx, "tmp");
  const there = folderThere(ctx, folder);
  if (there.isErr() || !there.value) return there.map(() => 0);
  const names: string[] = [];
  const scanned = scanFolder(ctx.fs, folder, tmpSweepEntriesMax, (entry) => names.push(entry.name));
  if (scanned.isErr()) return err(scanned.error);
  let swept = 0;
  for (const name of names) {
    const path = `${folder}/${name}`;
    const seen = lstatIfThere(ctx.fs, path);
    if (seen.isErr()) return err(seen.error);
    if (seen.value === undefined || seen.value.mtimeMs >= nowMs - olderThanMs) continue;
    const done = seen.value.isDirectory() ? settleLeftFolder(ctx, path, name) : unlinkIfThere(ctx.fs, path);
    if (done.isErr()) return err(done.error);
    if (done.value) swept++;
  }
  return ok(swept);
}

/** A folder in tmp/ is only ever an inbox a prune moved there: `inbox~<id>~<uuid>`. */
function settleLeftFolder(ctx: BusContext, path: string, name: string): Result<boolean, StoreError> {
  const [prefix, id] = name.split("~");
  if (`${prefix}~` !== tombPrefix || id === undefined || !isBusId(id)) return ok(false);
  return settleTomb(ctx, path, id).map(() => true);
}
