import type { Result } from "neverthrow";
import type { Address } from "../domain/mail/address.js";
import type { Envelope } from "../domain/mail/envelope.js";

export type StoreError =
  /** A system call failed; `code` is the errno name (ENOENT, EACCES, …). */
  | { kind: "io"; op: string; path: string; code: string; message: string }
  /** A path that must be a real folder is a symlink or something else. */
  | { kind: "not-a-folder"; path: string };

/** Why an entry of new/ was moved to cur/ without being read as mail. */
export type SetAsideReason = "symlink" | "not-a-file" | "too-big";

export type ClaimOutcome =
  /** Renamed new/ → cur/ and read: `text` is the whole file. */
  | { kind: "claimed"; name: string; path: string; text: string }
  /** Renamed new/ → cur/ but never opened as mail. */
  | { kind: "set-aside"; name: string; path: string; reason: SetAsideReason }
  /** Someone else claimed it first (or it vanished). */
  | { kind: "gone"; name: string };

export interface InboxListing {
  /** Entries of new/ to claim, sorted (send time first, by the naming convention). */
  names: string[];
  /** Never opened as mail, left where they are: dot-files, and names that are not valid UTF-8
   * (listed with U+FFFD in their place, so no path made of the listed name reaches the file). */
  hidden: string[];
  /** True when the listing stopped at its bound; another scan follows. */
  truncated: boolean;
}

export interface BoxFacts {
  address: Address;
  /** Newest mtime of the folder and its four boxes. */
  lastActivityMs: number;
  /** Entries in new/ plus mail the claim journal names (any entry counts: unread mail is never deleted). */
  waiting: number;
}

export interface RunningEntry {
  address: Address;
  text: string;
}

/** The mail root on disk: maildir boxes, sent copies, running records. Synchronous by design:
 * the hooks read their results the moment `emit` returns. */
export interface MailStore {
  readonly root: string;
  /** Creates the root if needed and sets it to 0700; refuses a root that is a symlink. */
  openRoot(): Result<void, StoreError>;
  /** Creates `<address>/{tmp,new,cur,sent}` (0700); tells whether the folder is open to other users. */
  openBox(address: Address): Result<{ path: string; openToOthers: boolean }, StoreError>;
  /** Publishes into `envelope.to`'s new/: exclusive create in tmp/, write, fsync, rename, fsync new/. */
  deliver(envelope: Envelope, sentAtMs: number, options: { durable: boolean }): Result<{ path: string }, StoreError>;
  /** Keeps the sender's copy of a request, ask or message in its sent/ under the same file name. */
  keepSent(envelope: Envelope, sentAtMs: number): Result<{ path: string }, StoreError>;
  /** The sender's copy of mail `id`, if this address has one. */
  findSent(address: Address, id: string): Result<{ path: string; text: string } | undefined, StoreError>;
  /** Lists new/, bounded. */
  listNew(address: Address): Result<InboxListing, StoreError>;
  /** Claims one entry of new/ by renaming it into cur/, then reads it without following links. */
  claim(address: Address, name: string): Result<ClaimOutcome, StoreError>;
  /** Reads an entry already in cur/ (recovery after a crash between claim and delivery). */
  readCur(address: Address, name: string): Result<ClaimOutcome, StoreError>;
  /** Records the names a scan is about to claim, so a restart can finish delivering them. */
  writeClaimJournal(address: Address, names: readonly string[]): Result<void, StoreError>;
  readClaimJournal(address: Address): Result<string[], StoreError>;
  /** Lets go of what the store keeps open for this address (its claim journal): at shutdown. */
  release(address: Address): void;
  /** Removes tmp/ files older than `olderThanMs`; returns how many. */
  sweepTmp(address: Address, nowMs: number, olderThanMs: number): Result<number, StoreError>;
  /** Writes `running/<address>.json` atomically (temp file + rename). */
  writeRunning(address: Address, text: string): Result<void, StoreError>;
  readRunning(address: Address): Result<string | undefined, StoreError>;
  listRunning(): Result<RunningEntry[], StoreError>;
  /** Removes a running record, but only while it still holds `expectedText` (undefined: always). */
  removeRunning(address: Address, expectedText: string | undefined): Result<void, StoreError>;
  /** Facts about every real folder in the root named like an address (running/ and links left out). */
  listBoxes(): Result<BoxFacts[], StoreError>;
  /** Removes an address folder and everything in it. */
  removeBox(address: Address): Result<void, StoreError>;
}
