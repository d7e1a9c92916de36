import type { Result } from "neverthrow";
import type { Address } from "../../domain/mail/address.js";
import type { DecodeError, Envelope } from "../../domain/mail/envelope.js";
import type { SetAsideReason } from "../shared/set-aside-reason.js";
import type { StoreError } from "../shared/store-error.js";

// The reasons live beside StoreError: every store's bounded read of an untrusted entry gives them.
export type { SetAsideReason } from "../shared/set-aside-reason.js";

export type ClaimOutcome =
  /** Renamed new/ → cur/ and read: `text` is the whole file. */
  | { kind: "claimed"; name: string; path: string; envelope: Envelope }
  /** Read whole, but not an envelope this version can read (`error` says why). */
  | { kind: "invalid"; name: string; path: string; error: DecodeError }
  /** Renamed new/ → cur/ but never opened as mail. */
  | { kind: "set-aside"; name: string; path: string; reason: SetAsideReason }
  /** Someone else claimed it first (or it vanished). */
  | { kind: "gone"; name: string }
  /** Renamed new/ → cur/, but the read failed (EMFILE, EIO, ENOMEM): it is ours, to read again from cur/. */
  | { kind: "unread"; name: string; path: string; error: StoreError };

/** Why a hinted claim stopped: its journal could not be written (nothing was claimed), or the claim
 * failed after the journal was written. */
export interface HintedClaimError {
  step: "journal" | "claim";
  error: StoreError;
}

/** Mail in place in a box. */
export interface Delivered {
  path: string;
  /** The folder fsync after the rename failed: the mail is in place (a retry would send it twice)
   * but may not survive a power cut. */
  unsynced: StoreError | undefined;
}

export interface InboxListing {
  /** Entries of new/ to claim, sorted (send time first, by the naming convention). */
  names: string[];
  /** Never opened as mail, left where they are: dot-files, and names that are not valid UTF-8
   * (listed with U+FFFD in their place, so no path made of the listed name reaches the file). */
  hidden: string[];
  /** Every hidden entry seen; only the first few are named in `hidden`. */
  hiddenCount: number;
  /** True when the listing stopped at its bound; another scan follows. */
  truncated: boolean;
}

/** What the claim journal lists; `damaged` says why a journal that is there could not be read. */
export interface ClaimJournal {
  names: string[];
  damaged: string | undefined;
}

/** Whether this process now owns an address's inbox, or what the owner record of the holder says. */
export type OwnerClaim = { kind: "owned" } | { kind: "held"; text: string };

export interface BoxFacts {
  address: Address;
  /** Newest mtime of the folder and its four boxes. */
  lastActivityMs: number;
  /** 1 when new/ holds any entry (only the first is read: a prune asks whether mail waits, never
   * how much) plus the mail the claim journal names. Unread mail is never deleted. */
  waiting: number;
}

export interface RunningEntry {
  address: Address;
  text: string;
}

/** A sent copy: where it is, and the envelope it holds. */
export interface SentCopy {
  path: string;
  envelope: Envelope;
}

/** The root and an address's folder: opened and checked before any other call, let go at shutdown. */
interface MailRoot {
  readonly root: string;
  /** Creates the root if needed and sets it to 0700; refuses a root that is a symlink, that is not
   * this user's, or that another user could replace (a folder or link above it they own or may write). */
  openRoot(): Result<void, StoreError>;
  /** Whether the root is still the folder openRoot opened (same device, inode and owner): a root
   * swapped after start must stop the mailbox, not feed it. One lstat. */
  checkRoot(): Result<void, StoreError>;
  /** Creates `<address>/{tmp,new,cur,sent}` (0700); tells whether the folder is open to other users. */
  openBox(address: Address): Result<{ path: string; openToOthers: boolean }, StoreError>;
  /** Lets go of what the store keeps open for this address (its claim journal): at shutdown. */
  release(address: Address): void;
}

/** A send: the recipient's copy in its new/, the sender's in its sent/, and the sent copies a reply answers. */
interface MailSending {
  /** Publishes into `envelope.to`'s new/: exclusive create in tmp/, write, fsync, rename, fsync new/. */
  deliver(envelope: Envelope, sentAtMs: number, options: { durable: boolean }): Result<Delivered, StoreError>;
  /** Keeps the sender's copy of a request, ask or message in its sent/ under the same file name. */
  keepSent(envelope: Envelope, sentAtMs: number): Result<Delivered, StoreError>;
  /** This address's copies of the mail `ids`, for a reply that answers them, in one bounded pass
   * over sent/. A file's name only makes it a candidate; the envelope's own id and sender decide, so
   * a decoy (wrong id inside, a link, a FIFO, a folder) is never a copy and never hides the real one.
   * An id without a copy is absent from the map. */
  findSentCopies(address: Address, ids: readonly string[]): Result<ReadonlyMap<string, SentCopy>, StoreError>;
}

/** What became of mail this session sent, and withdrawing it while it is still queued. */
interface MailTracking {
  /** Whether `name` is in `address`'s new/ (one lstat; a missing box reads as not there). */
  isQueued(address: Address, name: string): Result<boolean, StoreError>;
  /** Takes `name` out of `to`'s new/ by one rename, as a claim would take it (into `from`'s tmp/,
   * then removed): never both withdrawn and claimed. "not-queued": it had left new/ already. */
  withdraw(from: Address, to: Address, name: string): Result<"withdrawn" | "not-queued", StoreError>;
  /** Removes one of this address's sent copies. */
  removeSent(address: Address, name: string): Result<void, StoreError>;
}

/** Reading an inbox: new/ listed, claimed into cur/ under the claim journal, cur/ and sent/ read again. Every read decodes: the engine meets envelopes, never file text. */
interface MailReading {
  /** Lists new/, bounded. */
  listNew(address: Address): Result<InboxListing, StoreError>;
  /** What a watcher hint naming `name` asks for, in one call on the delivery path: when `name` is
   * still in new/ (one lstat: a stale hint writes nothing, and gives undefined), the claim journal
   * naming `journal` (which names `name`) is written, then `name` is claimed as `claim` does. */
  claimHinted(
    address: Address,
    name: string,
    journal: readonly string[],
  ): Result<ClaimOutcome | undefined, HintedClaimError>;
  /** Claims one entry of new/ by renaming it into cur/, then reads it without following links. */
  claim(address: Address, name: string): Result<ClaimOutcome, StoreError>;
  /** Reads an entry of new/ where it is, unclaimed (a session holding its mail looks for replies). */
  readNew(address: Address, name: string): Result<ClaimOutcome, StoreError>;
  /** Reads an entry already in cur/ (recovery after a crash between claim and delivery). */
  readCur(address: Address, name: string): Result<ClaimOutcome, StoreError>;
  /** Reads an entry of this address's sent/ under the same rules. */
  readSent(address: Address, name: string): Result<ClaimOutcome, StoreError>;
  /** The mail names of this address's cur/ or sent/, sorted (oldest first by the naming
   * convention), at most folderEntriesMax; none when the box is missing. */
  listBox(address: Address, box: "cur" | "sent"): Result<string[], StoreError>;
  /** Records the names a scan is about to claim, so a restart can finish delivering them. */
  writeClaimJournal(address: Address, names: readonly string[]): Result<void, StoreError>;
  readClaimJournal(address: Address): Result<ClaimJournal, StoreError>;
}

/** Who claims from an inbox: one process at a time. */
interface InboxOwner {
  /** Takes ownership of `address`'s inbox for this process: only one process claims from an inbox
   * (two on one session id would share its claim journal). `token` is unique to the attempt. */
  claimOwner(address: Address, token: string, text: string): Result<OwnerClaim, StoreError>;
  /** Takes ownership over from a holder judged gone, only while its record still holds `staleText`. */
  replaceOwner(address: Address, staleText: string, token: string, text: string): Result<OwnerClaim, StoreError>;
  /** The owner record's text, undefined when nobody holds the inbox. */
  readOwner(address: Address): Result<string | undefined, StoreError>;
  /** Lets ownership go, while the record still holds `text`. */
  releaseOwner(address: Address, text: string): Result<void, StoreError>;
}

/** What the engine keeps of its asks across a restart. */
interface AskLedgerFile {
  /** `<address>/asks.json`: what the engine must remember of asks across a restart (its own format). */
  writeAskLedger(address: Address, text: string): Result<void, StoreError>;
  /** The ask ledger's text, undefined when there is none. */
  readAskLedger(address: Address): Result<string | undefined, StoreError>;
}

/** `running/`: one record per running session, the roster everyone reads. */
interface RunningRecords {
  /** Writes `running/<address>.json` atomically (temp file + rename). */
  writeRunning(address: Address, text: string): Result<void, StoreError>;
  readRunning(address: Address): Result<string | undefined, StoreError>;
  /** Whether `running/<address>.json` is there: one lstat, and any answer but "not there" is yes. */
  hasRunning(address: Address): boolean;
  listRunning(): Result<RunningEntry[], StoreError>;
  /** Removes a running record, but only while it still holds `expectedText` (undefined: always). */
  removeRunning(address: Address, expectedText: string | undefined): Result<void, StoreError>;
}

/** Upkeep: leftovers of crashed writers, folders of sessions long gone. */
interface MailUpkeep {
  /** Removes tmp/ files older than `olderThanMs`; returns how many. */
  sweepTmp(address: Address, nowMs: number, olderThanMs: number): Result<number, StoreError>;
  /** Facts about every real folder in the root named like an address (running/ and links left out). */
  listBoxes(): Result<BoxFacts[], StoreError>;
  /** Removes a closed session's address folder and everything in it, unless mail reached its new/
   * meanwhile (a send racing the prune) or its owner record is no longer `ownerSeen`, the one the
   * caller judged gone (undefined: there was none), as when the session starts again meanwhile:
   * true when it was removed. */
  removeBox(address: Address, ownerSeen: string | undefined): Result<boolean, StoreError>;
}

/** The mail root on disk: maildir boxes, sent copies, running records. Synchronous by design:
 * the hooks read their results the moment `emit` returns. */
export interface MailStore
  extends MailRoot,
    MailSending,
    MailTracking,
    MailReading,
    InboxOwner,
    AskLedgerFile,
    RunningRecords,
    MailUpkeep {}
