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
  hasMessage,
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
  const disk: FsBusContext = {
    fs: options.fs,
    root: options.root.replace(/\/+$/, "") || "/",
    uid: options.uid,
    entropy: options.entropy,
    warn: options.warn ?? (() => {}),
    closeBus: (path, stats) => closeBus(disk, path, stats),
    decodedClaims: new Map(),
  };
  return {
    open: () => openBus(disk),
    writeRecord: (record) => writeRecord(disk, record),
    readRecord: (id) => readRecord(disk, id),
    touchRecord: (record, nowMs) => touchRecord(disk, record, nowMs),
    checkRecord: (id, self) => checkRecord(disk, id, self),
    listRecords: () => listRecords(disk),
    removeRecord: (id, joinToken, heartbeatMs) => removeRecord(disk, id, joinToken, heartbeatMs),
    deliver: (message, sentAtMs) => deliver(disk, message, sentAtMs),
    peekInbox: (id, max, time) => peekInbox(disk, id, max, time),
    peekUnseen: (id, max, skip, time) => peekUnseen(disk, id, max, skip, time),
    inboxIds: (id, nowMs) => inboxIds(disk, id, nowMs),
    consume: (id, names) => consume(disk, id, names),
    setAside: (id, names, reader) => setAside(disk, id, names, reader),
    listAside: (id) => listAside(disk, id),
    dropAside: (id, entries) => dropAside(disk, id, entries),
    restoreAside: (id, entries) => restoreShown(disk, id, entries),
    countInbox: (id) => countInbox(disk, id),
    hasMessage: (id, name) => hasMessage(disk, id, name),
    pruneInbox: (id, beforeMs, dropEmpty, looksMax) => pruneInbox(disk, id, beforeMs, dropEmpty, looksMax),
    listInboxes: () => listInboxes(disk),
    openInbox: (id) => openInbox(disk, id),
    inboxPath: (id) => inboxFolder(disk, id),
    listClaims: () => listClaims(disk),
    pageClaims: () => pageClaims(disk),
    createClaims: (owner, joinToken, label, keys, identities, observed) =>
      createClaims(disk, owner, joinToken, label, keys, identities ?? [], observed === true),
    removeClaims: (claims) => removeClaims(disk, claims),
    removeMarks: (claims) => removeMarks(disk, claims),
    claimTimes: (claims) => claimTimes(disk, claims),
    stampClaim: (claim, nowMs) => stampClaim(disk, claim, nowMs),
    writeOffer: (offer) => writeOffer(disk, offer),
    readOffer: (id) => readOffer(disk, id),
    listOffers: () => listOffers(disk),
    removeOffer: (id) => removeOffer(disk, id),
    moveClaim: (path, identities, to, instance) => moveClaim(disk, path, identities, to, instance),
    claimInstances: (claims) => claimInstances(disk, claims),
    sweepTmp: (nowMs, olderThanMs) => sweepTmp(disk, nowMs, olderThanMs),
  };
}

/** The path to the bus folder is judged from `/` before anything is made (no mkdir through a folder
 * another user controls), then the folder and its four folders are made 0700 and checked to be this
 * user's. A bus folder given as a link of this user's is used by the real folder it leads to. */
function openBus(disk: FsBusContext): Result<void, StoreError> {
  const real = { path: disk.root };
  let walked = checkRootPath(disk.fs, disk.root, disk.uid, real);
  if (failedWith(walked, "ENOENT")) {
    const made = attempt("mkdir", disk.root, () => disk.fs.mkdirSync(disk.root, { mode: folderMode, recursive: true }));
    if (made.isErr() && !failedWith(made, "EEXIST")) return err(made.error);
    walked = checkRootPath(disk.fs, disk.root, disk.uid, real);
  }
  if (walked.isErr()) return err(walked.error);
  disk.root = real.path;
  // An existing folder may have been made open to others; it is this user's (the walk said so).
  // One others could write may hold what they put there: the whole bus is closed and searched.
  const tightened = openToOthers(walked.value)
    ? disk.closeBus(disk.root, walked.value)
    : closeFolder(disk, disk.root).map(() => undefined);
  if (tightened.isErr()) return err(tightened.error);
  for (const folder of busFolders) {
    const ready = ensureOwn(disk, folderPath(disk, folder));
    if (ready.isErr()) return err(ready.error);
  }
  return ok(undefined);
}
