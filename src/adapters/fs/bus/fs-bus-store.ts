// The bus of one repository on a synchronous filesystem (node:fs, or memfs in the simulator). Layout
// under `<agent dir>/session-bus/<repo key>/`, folders 0700 and files 0600, all this user's:
//   sessions/<id>.json                          one record per joined session (mtime: heartbeat)
//   inbox/<id>/<15-digit ms>-<message id>.json  one file per message (mtime: arrival, TTL clock)
//   claims/<encoded key>~<owner>~<join token>   one file per claimed path (hard links of one file)
//   tmp/                                        temp files, tombstones; swept by age
// Nothing is appended to a shared file, no link is followed out of the folder, every read is bounded.
import { err, ok, type Result } from "neverthrow";
import type { BusStore } from "../../../ports/bus/bus-store.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { folderMode } from "../shared/fs-files.js";
import type { FsLike } from "../shared/fs-like.js";
import { checkRootPath } from "../shared/fs-path-safety.js";
import { createClaims, listClaims, removeClaims } from "./fs-bus-claims.js";
import { type BusContext, busFolders, ensureOwn, folderPath, inboxFolder } from "./fs-bus-folders.js";
import { consume, countInbox, deliver, listInboxes, openInbox, peekInbox, peekUnseen } from "./fs-bus-inbox.js";
import { pruneInbox, sweepTmp } from "./fs-bus-prune.js";
import { listRecords, readRecord, removeRecord, writeRecord } from "./fs-bus-records.js";

export interface FsBusStoreOptions {
  fs: FsLike;
  /** Absolute path of this repository's bus folder: `<agent dir>/session-bus/<repo key>`. */
  root: string;
  /** This user's id (process.getuid()): the owner of every folder the store opens or writes into. */
  uid: number;
  /** Unique temp file names. */
  entropy: Entropy;
}

export function createFsBusStore(options: FsBusStoreOptions): BusStore {
  const ctx: BusContext = {
    fs: options.fs,
    root: options.root.replace(/\/+$/, "") || "/",
    uid: options.uid,
    entropy: options.entropy,
    decodedClaims: new Map(),
  };
  return {
    open: () => openBus(ctx),
    writeRecord: (record) => writeRecord(ctx, record),
    readRecord: (id) => readRecord(ctx, id),
    listRecords: () => listRecords(ctx),
    removeRecord: (id, joinToken, heartbeatMs) => removeRecord(ctx, id, joinToken, heartbeatMs),
    deliver: (message, sentAtMs) => deliver(ctx, message, sentAtMs),
    peekInbox: (id, max) => peekInbox(ctx, id, max),
    peekUnseen: (id, max, skip) => peekUnseen(ctx, id, max, skip),
    consume: (id, names) => consume(ctx, id, names),
    countInbox: (id) => countInbox(ctx, id),
    pruneInbox: (id, beforeMs, dropEmpty) => pruneInbox(ctx, id, beforeMs, dropEmpty),
    listInboxes: () => listInboxes(ctx),
    openInbox: (id) => openInbox(ctx, id),
    inboxPath: (id) => inboxFolder(ctx, id),
    listClaims: () => listClaims(ctx),
    createClaims: (owner, joinToken, label, keys) => createClaims(ctx, owner, joinToken, label, keys),
    removeClaims: (claims) => removeClaims(ctx, claims),
    sweepTmp: (nowMs, olderThanMs) => sweepTmp(ctx, nowMs, olderThanMs),
  };
}

/** The path to the bus folder is judged from `/` before anything is made (no mkdir through a folder
 * another user controls), then the folder and its four folders are made 0700 and checked to be this
 * user's. A bus folder given as a link of this user's is used by the real folder it leads to. */
function openBus(ctx: BusContext): Result<void, StoreError> {
  const real = { path: ctx.root };
  let walked = checkRootPath(ctx.fs, ctx.root, ctx.uid, real);
  if (failedWith(walked, "ENOENT")) {
    const made = attempt("mkdir", ctx.root, () => ctx.fs.mkdirSync(ctx.root, { mode: folderMode, recursive: true }));
    if (made.isErr() && !failedWith(made, "EEXIST")) return err(made.error);
    walked = checkRootPath(ctx.fs, ctx.root, ctx.uid, real);
  }
  if (walked.isErr()) return err(walked.error);
  ctx.root = real.path;
  // An existing folder may have been made open to others; it is this user's (the walk said so).
  const tightened = attempt("chmod", ctx.root, () => ctx.fs.chmodSync(ctx.root, folderMode));
  if (tightened.isErr()) return err(tightened.error);
  for (const folder of busFolders) {
    const ready = ensureOwn(ctx, folderPath(ctx, folder));
    if (ready.isErr()) return err(ready.error);
  }
  return ok(undefined);
}
