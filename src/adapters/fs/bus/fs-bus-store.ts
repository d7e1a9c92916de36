// The bus of one repository on a synchronous filesystem (node:fs, or memfs in the simulator). Layout
// under `<agent dir>/session-bus/<repo key>/`, folders 0700 (and sticky) and files 0600, all this user's:
//   sessions/<id>.json                          one record per joined session (mtime: heartbeat)
//   inbox/<id>/<15-digit ms>-<message id>.json  one file per message (mtime: arrival, TTL clock)
//   claims/<encoded key>~<owner>~<join token>   one file per claimed path (hard links of one file);
//          #<device>-<inode>#<same>             an existing file's identity; !<same>: taken on an edit
//   offers/<message id>.json                     a handoff's offer of claims, until taken or lapsed
//   tmp/                                        temp files, tombstones; swept by age
// Nothing is appended to a shared file, no link is followed out of the folder, every read is bounded.
import { err, ok, type Result } from "neverthrow";
import type { BusWarning } from "../../../ports/bus/bus-host.js";
import type { BusStore } from "../../../ports/bus/bus-store.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { folderMode } from "../shared/fs-files.js";
import type { FsLike } from "../shared/fs-like.js";
import { checkRootPath, openToOthers } from "../shared/fs-path-safety.js";
import { dropAside, listAside, restoreShown, setAside } from "./fs-bus-aside.js";
import { claimInstances } from "./fs-bus-claim-instance.js";
import { claimTimes, removeMarks, stampClaim } from "./fs-bus-claim-marks.js";
import { pageClaims } from "./fs-bus-claim-pages.js";
import { createClaims, listClaims, removeClaims } from "./fs-bus-claims.js";
import { closeBus } from "./fs-bus-closing.js";
import { busFolders, closeFolder, ensureOwn, type FsBusContext, folderPath, inboxFolder } from "./fs-bus-folders.js";
import {
  consume,
  countInbox,
  deliver,
  inboxIds,
  listInboxes,
  openInbox,
  peekInbox,
  peekUnseen,
} from "./fs-bus-inbox.js";
import { listOffers, moveClaim, readOffer, removeOffer, writeOffer } from "./fs-bus-offers.js";
import { pruneInbox, sweepTmp } from "./fs-bus-prune.js";
import { checkRecord, listRecords, readRecord, removeRecord, touchRecord, writeRecord } from "./fs-bus-records.js";

export interface FsBusStoreOptions {
  fs: FsLike;
  /** Absolute path of this repository's bus folder: `<agent dir>/session-bus/<repo key>`. */
  root: string;
  /** This user's id (process.getuid()): the owner of every folder the store opens or writes into. */
  uid: number;
  /** Unique temp file names. */
  entropy: Entropy;
  /** Told when the store found bus folders open to other users and closed them (absent: not told). */
  warn?: (warning: BusWarning) => void;
}

export function createFsBusStore(options: FsBusStoreOptions): BusStore {
  const ctx: FsBusContext = {
    fs: options.fs,
    root: options.root.replace(/\/+$/, "") || "/",
    uid: options.uid,
    entropy: options.entropy,
    warn: options.warn ?? (() => {}),
    closeBus: (path, stats) => closeBus(ctx, path, stats),
    decodedClaims: new Map(),
  };
  return {
    open: () => openBus(ctx),
    writeRecord: (record) => writeRecord(ctx, record),
    readRecord: (id) => readRecord(ctx, id),
    touchRecord: (record, nowMs) => touchRecord(ctx, record, nowMs),
    checkRecord: (id, self) => checkRecord(ctx, id, self),
    listRecords: () => listRecords(ctx),
    removeRecord: (id, joinToken, heartbeatMs) => removeRecord(ctx, id, joinToken, heartbeatMs),
    deliver: (message, sentAtMs) => deliver(ctx, message, sentAtMs),
    peekInbox: (id, max, time) => peekInbox(ctx, id, max, time),
    peekUnseen: (id, max, skip, time) => peekUnseen(ctx, id, max, skip, time),
    inboxIds: (id, nowMs) => inboxIds(ctx, id, nowMs),
    consume: (id, names) => consume(ctx, id, names),
    setAside: (id, names, reader) => setAside(ctx, id, names, reader),
    listAside: (id) => listAside(ctx, id),
    dropAside: (id, entries) => dropAside(ctx, id, entries),
    restoreAside: (id, entries) => restoreShown(ctx, id, entries),
    countInbox: (id) => countInbox(ctx, id),
    pruneInbox: (id, beforeMs, dropEmpty, looksMax) => pruneInbox(ctx, id, beforeMs, dropEmpty, looksMax),
    listInboxes: () => listInboxes(ctx),
    openInbox: (id) => openInbox(ctx, id),
    inboxPath: (id) => inboxFolder(ctx, id),
    listClaims: () => listClaims(ctx),
    pageClaims: () => pageClaims(ctx),
    createClaims: (owner, joinToken, label, keys, identities, observed) =>
      createClaims(ctx, owner, joinToken, label, keys, identities ?? [], observed === true),
    removeClaims: (claims) => removeClaims(ctx, claims),
    removeMarks: (claims) => removeMarks(ctx, claims),
    claimTimes: (claims) => claimTimes(ctx, claims),
    stampClaim: (claim, nowMs) => stampClaim(ctx, claim, nowMs),
    writeOffer: (offer) => writeOffer(ctx, offer),
    readOffer: (id) => readOffer(ctx, id),
    listOffers: () => listOffers(ctx),
    removeOffer: (id) => removeOffer(ctx, id),
    moveClaim: (path, identities, to, instance) => moveClaim(ctx, path, identities, to, instance),
    claimInstances: (claims) => claimInstances(ctx, claims),
    sweepTmp: (nowMs, olderThanMs) => sweepTmp(ctx, nowMs, olderThanMs),
  };
}

/** The path to the bus folder is judged from `/` before anything is made (no mkdir through a folder
 * another user controls), then the folder and its four folders are made 0700 and checked to be this
 * user's. A bus folder given as a link of this user's is used by the real folder it leads to. */
function openBus(ctx: FsBusContext): Result<void, StoreError> {
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
  // One others could write may hold what they put there: the whole bus is closed and searched.
  const tightened = openToOthers(walked.value)
    ? ctx.closeBus(ctx.root, walked.value)
    : closeFolder(ctx, ctx.root).map(() => undefined);
  if (tightened.isErr()) return err(tightened.error);
  for (const folder of busFolders) {
    const ready = ensureOwn(ctx, folderPath(ctx, folder));
    if (ready.isErr()) return err(ready.error);
  }
  return ok(undefined);
}
