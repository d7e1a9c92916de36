// The mail root on a synchronous filesystem (node:fs, or memfs in the simulator): maildir delivery,
// claim by rename, reads that never follow a link nor block on a FIFO. Layout:
//   <root>/<address>/{tmp,new,cur,sent}/   folders 0700, files 0600
//   <root>/<address>/claiming.json         the claim journal
//   <root>/running/<address>.json          running records
import { err, ok, type Result } from "neverthrow";
import type { Address } from "../../../domain/mail/address.js";
import {
  decodeEnvelope,
  type Envelope,
  encodeEnvelope,
  envelopeFileName,
  mayBeMailName,
} from "../../../domain/mail/envelope.js";
import {
  envelopeFileBytesMax,
  folderEntriesMax,
  folderEntriesReadMax,
  tmpSweepMax,
} from "../../../domain/mail/limits.js";
import type { ClaimOutcome, Delivered, HintedClaimError, MailStore } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { attempt, failedWith } from "../shared/fs-errors.js";
import { assertEntryName, listEntries, listMailNames, mayBeThere, writeAtomic } from "../shared/fs-files.js";
import { sweepLeftovers } from "../shared/fs-leftovers.js";
import type { FsLike } from "../shared/fs-like.js";
import { readOwnEntry } from "../shared/fs-read.js";
import { readAskLedger, writeAskLedger } from "./fs-ask-ledger.js";
import {
  addressFolder,
  allBoxes,
  type Box,
  boxFolder,
  checkBox,
  checkOwnFolder,
  ensureBox,
  ensureOwnFolder,
  type FsMailContext,
} from "./fs-boxes.js";
import { closeClaimJournal, readClaimJournal, writeClaimJournal } from "./fs-claim-journal.js";
import { claimOwner, readOwner, releaseOwner, replaceOwner } from "./fs-owner.js";
import { listBoxes, removeBox, settleTombstone } from "./fs-prune.js";
import { isQueued, listNew, removeSent, withdraw } from "./fs-queued.js";
import { checkRoot, openRoot } from "./fs-root.js";
import { hasRunning, listRunning, readRunning, removeRunning, writeRunning } from "./fs-running-records.js";
import { findSentCopies } from "./fs-sent-lookup.js";

export interface FsMailStoreOptions {
  fs: FsLike;
  /** Absolute path of the mail root. */
  root: string;
  /** This user's id (process.getuid()): the owner of every folder the store opens or writes into. */
  uid: number;
  /** fsync new/ after a durable delivery (default true); false where folders cannot be fsynced. */
  syncDirs?: boolean;
}

export function createFsMailStore(options: FsMailStoreOptions): MailStore {
  const disk: FsMailContext = {
    fs: options.fs,
    root: trimTrailingSlashes(options.root),
    uid: options.uid,
    rootIdentity: undefined,
    rootLink: undefined,
    syncDirs: options.syncDirs ?? true,
    journals: new Map(),
    curChecked: new Set(),
  };
  return {
    // A root that is a link is used by the folder it leads to, once judged (see openRoot).
    get root() {
      return disk.root;
    },
    openRoot: () => openRoot(disk),
    checkRoot: () => checkRoot(disk),
    // Each folder is this user's (ensureBox refuses any other), so the chmod the engine suggests works.
    openBox: (address) =>
      // A prune that crashed with this folder in its tombstone: the mail in it comes back first.
      settleTombstone(disk, address).andThen(() =>
        ensureBox(disk, address, allBoxes).map((stats) => ({
          path: addressFolder(disk, address),
          openToOthers: (stats.mode & 0o077) !== 0,
        })),
      ),
    deliver: (envelope, sentAtMs, { durable }) => publish(disk, envelope, sentAtMs, "new", durable),
    // Not fsynced: a copy lost to a power cut only costs a reply its quote.
    keepSent: (envelope, sentAtMs) => publish(disk, envelope, sentAtMs, "sent", false),
    findSentCopies: (address, ids) => findSentCopies(disk, address, ids),
    listNew: (address) => listNew(disk, address),
    claimHinted: (address, name, journal) => claimHinted(disk, address, name, journal),
    claim: (address, name) => {
      assertEntryName(name);
      return claimFrom(disk, address, addressFolder(disk, address), name);
    },
    readNew: (address, name) => readIn(disk, address, "new", name),
    readCur: (address, name) => readIn(disk, address, "cur", name),
    readSent: (address, name) => readIn(disk, address, "sent", name),
    listBox: (address, box) => listBox(disk, address, box),
    writeClaimJournal: (address, names) => writeClaimJournal(disk, address, names),
    readClaimJournal: (address) => readClaimJournal(disk, address),
    writeAskLedger: (address, text) => writeAskLedger(disk, address, text),
    readAskLedger: (address) => readAskLedger(disk, address),
    claimOwner: (address, token, text) => claimOwner(disk, address, token, text),
    replaceOwner: (address, staleText, token, text) => replaceOwner(disk, address, staleText, token, text),
    readOwner: (address) => readOwner(disk, address),
    releaseOwner: (address, text) => releaseOwner(disk, address, text),
    release: (address) => closeClaimJournal(disk, address),
    sweepTmp: (address, nowMs, olderThanMs) => sweepTmp(disk, address, nowMs, olderThanMs),
    writeRunning: (address, text) => writeRunning(disk, address, text),
    readRunning: (address) => readRunning(disk, address),
    hasRunning: (address) => hasRunning(disk, address),
    listRunning: () => listRunning(disk),
    removeRunning: (address, expectedText) => removeRunning(disk, address, expectedText),
    listBoxes: () => listBoxes(disk),
    removeBox: (address, ownerSeen) => removeBox(disk, address, ownerSeen),
    isQueued: (address, name) => isQueued(disk, address, name),
    withdraw: (from, to, name) => withdraw(disk, from, to, name),
    removeSent: (address, name) => removeSent(disk, address, name),
  };
}

const trimTrailingSlashes = (path: string): string => path.replace(/\/+$/, "") || "/";

/** Maildir publish into `box` of the recipient (new/) or the sender (sent/): the temp name is the
 * final name, in the same address's tmp/, so an id is in flight at most once per folder (O_EXCL). */
function publish(
  disk: FsMailContext,
  envelope: Envelope,
  sentAtMs: number,
  box: "new" | "sent",
  durable: boolean,
): Result<Delivered, StoreError> {
  const text = encodeEnvelope(envelope);
  // Branded by the schema check in the domain; addressFolder checks again before any path is built.
  const address = box === "new" ? envelope.to : envelope.from;
  const name = envelopeFileName(sentAtMs, envelope.id);
  const finalPath = `${boxFolder(disk, address, box)}/${name}`;
  return ensureBox(disk, address, allBoxes)
    .andThen(() =>
      writeAtomic(disk.fs, {
        tmpPath: `${boxFolder(disk, address, "tmp")}/${name}`,
        finalPath,
        text,
        durable,
        syncFolder: disk.syncDirs ? boxFolder(disk, address, box) : undefined,
        replaceLeftover: false,
      }),
    )
    .map(({ unsynced }) => ({ path: finalPath, unsynced }));
}

/** The shortest path from a sender's rename to the model, straight through: no layer per step. */
function claimHinted(
  disk: FsMailContext,
  address: Address,
  name: string,
  journal: readonly string[],
): Result<ClaimOutcome | undefined, HintedClaimError> {
  assertEntryName(name);
  const folder = addressFolder(disk, address);
  // A late hint for a name handled long ago (or by another process) costs one lstat, never a
  // journal write. Any answer but "not there" counts as waiting: the claim sorts it out.
  if (!mayBeThere(disk.fs, `${folder}/new/${name}`)) return ok(undefined);
  const journaled = writeClaimJournal(disk, address, journal);
  if (journaled.isErr()) return err({ step: "journal", error: journaled.error });
  const claimed = claimFrom(disk, address, folder, name);
  return claimed.isErr() ? err({ step: "claim", error: claimed.error }) : ok(claimed.value);
}

/** Rename first, read after: whoever wins the rename owns the mail, and a link is moved as a link.
 * `folder` is the address folder. */
function claimFrom(
  disk: FsMailContext,
  address: Address,
  folder: string,
  name: string,
): Result<ClaimOutcome, StoreError> {
  const from = `${folder}/new/${name}`;
  const to = `${folder}/cur/${name}`;
  // new/ was checked by the listing that named this entry; cur/ was not, and a rename through a
  // cur/ swapped for a link would move the mail out of the mail root: one lstat before the first
  // rename after each listing. A missing cur/ is made only when the rename fails (a claim sits on
  // the delivery path).
  if (!disk.curChecked.has(address)) {
    const cur = checkOwnFolder(disk, boxFolder(disk, address, "cur"));
    if (cur.isErr() && !failedWith(cur, "ENOENT")) return err(cur.error);
    if (cur.isOk()) disk.curChecked.add(address);
  }
  try {
    disk.fs.renameSync(from, to);
  } catch {
    return claimAgain(disk, address, from, to, name);
  }
  return readAs(disk, name, to);
}

/** The rename failed: new/ is checked and cur/ made if it is missing, and the rename tried once more. */
function claimAgain(
  disk: FsMailContext,
  address: Address,
  from: string,
  to: string,
  name: string,
): Result<ClaimOutcome, StoreError> {
  disk.curChecked.delete(address);
  const ready = checkBox(disk, address, ["new"]).andThen(() => ensureOwnFolder(disk, boxFolder(disk, address, "cur")));
  if (ready.isErr()) return err(ready.error);
  const moved = attempt("rename", to, () => disk.fs.renameSync(from, to));
  if (moved.isErr()) {
    // Gone only if the entry itself is gone: ENOENT from a vanished cur/ must not hide it.
    return failedWith(moved, "ENOENT") && !mayBeThere(disk.fs, from) ? ok({ kind: "gone", name }) : err(moved.error);
  }
  return readAs(disk, name, to);
}

function readIn(
  disk: FsMailContext,
  address: Address,
  box: "new" | "cur" | "sent",
  name: string,
): Result<ClaimOutcome, StoreError> {
  assertEntryName(name);
  const checked = checkBox(disk, address, [box]);
  if (checked.isErr()) return err(checked.error);
  return readAs(disk, name, `${boxFolder(disk, address, box)}/${name}`);
}

/** A box's mail names, sorted (send time first, by the naming convention), at most folderEntriesMax. */
function listBox(disk: FsMailContext, address: Address, box: "cur" | "sent"): Result<string[], StoreError> {
  const checked = checkBox(disk, address, [box]);
  if (failedWith(checked, "ENOENT")) return ok([]);
  if (checked.isErr()) return err(checked.error);
  return listMailNames(disk.fs, boxFolder(disk, address, box), mayBeMailName, {
    namesMax: folderEntriesMax,
    hiddenMax: 0,
    entriesMax: folderEntriesReadMax,
  }).map((listing) => listing.names);
}

/** The entry is in cur/ by now, so it is this session's whatever the read does: a failed read is
 * an outcome to retry from cur/, never an error that would let the caller forget the mail. */
function readAs(disk: FsMailContext, name: string, path: string): Result<ClaimOutcome, StoreError> {
  const read = readOwnEntry(disk.fs, path, envelopeFileBytesMax, disk.uid);
  if (read.isErr()) return ok({ kind: "unread", name, path, error: read.error });
  const found = read.value;
  switch (found.kind) {
    case "text": {
      // Decoded here, as the bus store decodes its messages: the engine meets envelopes, never text.
      const decoded = decodeEnvelope(found.text);
      return ok(
        decoded.isOk()
          ? { kind: "claimed", name, path, envelope: decoded.value }
          : { kind: "invalid", name, path, error: decoded.error },
      );
    }
    case "set-aside":
      return ok({ kind: "set-aside", name, path, reason: found.reason });
    case "gone":
      return ok({ kind: "gone", name });
    default: {
      const never: never = found;
      return never;
    }
  }
}

/** A crashed writer's leftovers in an address's tmp/: what is not a folder and was last changed
 * before nowMs - olderThanMs, at most tmpSweepMax per call. */
function sweepTmp(
  disk: FsMailContext,
  address: Address,
  nowMs: number,
  olderThanMs: number,
): Result<number, StoreError> {
  const box: Box = "tmp";
  const folder = boxFolder(disk, address, box);
  const listed = checkBox(disk, address, [box]).andThen(() => listEntries(disk.fs, folder, folderEntriesMax));
  if (listed.isErr()) return err(listed.error);
  const names = listed.value.entries.map((entry) => entry.name);
  return sweepLeftovers(disk.fs, folder, names, { beforeMs: nowMs - olderThanMs, removeMax: tmpSweepMax });
}
