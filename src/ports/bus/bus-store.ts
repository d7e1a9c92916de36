import type { Result } from "neverthrow";
import type { BusMessage, ClaimName, HandoffOffer, SessionRecord } from "../../domain/bus/bus-files.js";
import type { StoreError } from "../shared/store-error.js";

/** A record as read, with its heartbeat (the file's mtime). */
export interface StoredRecord {
  record: SessionRecord;
  heartbeatMs: number;
}

/** A file of `sessions/` or an inbox that is not what this build can read: named, never deleted
 * for it (a newer build may read it); the TTL of its mtime ends it. */
export interface Unreadable {
  name: string;
  reason: "not-a-file" | "too-big" | "not-json" | "wrong-shape" | "name-mismatch";
  mtimeMs: number;
}

export interface RecordListing {
  records: StoredRecord[];
  unreadable: Unreadable[];
  /** sessions/ held more entries than one listing reads: a record past the bound is not here, so
   * nothing may be decided from its absence (a label is not free, a claim is not an orphan). */
  truncated: boolean;
}

/** What a heartbeat found: its own record touched, no record (a prune removed it), or another
 * record of this id (another process of this session joined since). */
export type TouchOutcome = { kind: "touched" } | { kind: "missing" } | { kind: "changed"; record: SessionRecord };

/** Whose `id`'s record is now: this process's, none, or another process's (of this session). */
export type RecordCheck = { kind: "own" } | { kind: "missing" } | { kind: "changed"; record: SessionRecord };

/** One inbox file at the front of the queue. */
export type InboxEntry =
  | { kind: "message"; name: string; arrivedMs: number; message: BusMessage }
  | ({ kind: "unreadable" } & Unreadable & { arrivedMs: number });

export interface InboxPeek {
  /** Oldest first by arrival (mtime, then name): at most the `max` messages asked for, and every
   * unreadable file met before the last of them (never counted toward `max`). */
  entries: InboxEntry[];
  /** Every file in the inbox, read or not: the `… N more` count comes from here, not the peek. */
  files: number;
}

/** The listening watch's look at an inbox: only mail it has not seen is read. */
export interface UnseenMail {
  /** Messages whose ids were not in the skip set, oldest first by arrival, at most the `max` asked. */
  messages: { name: string; arrivedMs: number; message: BusMessage }[];
  /** Ids of files read and found unreadable: the caller skips them next time (never read again). */
  unreadableIds: string[];
  /** The id in the name of every file known to be in the inbox, read or not: what is still there. */
  ids: ReadonlySet<string>;
  /** `ids` covers the whole inbox: the folder was listed whole at least once. Until then an id
   * missing from it may only not be listed yet. */
  complete: boolean;
}

/** When a look at an inbox happens: `nowMs` stamps a listing's start; mail that arrived before
 * `expiredBeforeMs` is past the TTL and never returned, whether or not a prune removed it yet. */
export interface InboxTime {
  nowMs: number;
  expiredBeforeMs: number;
}

/** Files counted by one bounded listing: `atLeast` when the listing stopped at its bound, so there
 * are `files` or more. */
export interface FileCount {
  files: number;
  atLeast: boolean;
}

/** What one prune of an inbox did: the files it removed, what is left (as countInbox counts it),
 * and how many files it looked at (an lstat each, at most the number it was allowed). */
export interface InboxPruned {
  removed: number;
  left: FileCount;
  looked: number;
  /** The messages it removed unread that read as messages of this inbox: their senders are told. */
  expired: BusMessage[];
}

/** A shown message set aside until the session records that it reached the model. */
export interface AsideEntry {
  /** Its name in the aside folder. */
  aside: string;
  /** Its name in the inbox (where it goes back). */
  name: string;
  messageId: string;
  /** The pid of the process whose read showed it. */
  reader: number;
}

/** An offer as read, with when it was made (its file's mtime: what ages it). */
export interface StoredOffer {
  offer: HandoffOffer;
  madeMs: number;
}

export interface ClaimListing {
  claims: ClaimName[];
  /** The claims of `claims` taken on an edit (their marks, `!<name>`): they lapse after the last
   * edit. A mark with no path claim of its name beside it marks nothing. */
  marks: ClaimName[];
  /** Entries of `claims/` whose names are not claims (dot-files, temp files, foreign names), counted. */
  ignored: number;
  /** The listing stopped at its bound: claims past it are not in `claims`. */
  truncated: boolean;
}

/** One page of a listing of `claims/`. */
export interface ClaimPage {
  /** The claims and the marks this page listed, in the folder's order. */
  claims: readonly ClaimName[];
  marks: readonly ClaimName[];
  /** With the last page, the whole listing (as listClaims gives it); undefined while entries are left. */
  whole: ClaimListing | undefined;
}

/** One listing of `claims/` read in pages across calls, over one folder handle kept open between
 * them: the pages together are one listing (an entry there throughout is listed once), however
 * long the caller waits between them. */
export interface ClaimPages {
  /** Lists one more page (at most claimsPageEntriesMax entries, dot-files included). The handle is
   * closed after the last page or a failure. */
  next(): Result<ClaimPage, StoreError>;
  /** Closes the handle of a listing left unfinished; does nothing once it is closed. */
  close(): void;
}

/** The bus of one repository on disk: `<agent dir>/session-bus/<repo key>/`. Synchronous, like the
 * mail store; every read is bounded, no link is followed out of the bus folder, and nothing is ever
 * appended to a shared file: each record, message and claim is a file of its own, published whole
 * (a temp file renamed or linked into place). */
export interface BusStore {
  /** Makes the folders (0700) and checks they are this user's. */
  open(): Result<void, StoreError>;

  /** Writes (or replaces) a session record whole; its new mtime is the heartbeat. */
  writeRecord(record: SessionRecord): Result<void, StoreError>;
  readRecord(id: string): Result<StoredRecord | undefined, StoreError>;
  /** The heartbeat: sets the mtime of `record.id`'s record to `nowMs` in place while it is this one
   * (the same join token, pid and start token). It never makes a record: one a prune removed stays
   * removed, so the session learns it lost its membership instead of writing itself back beside
   * the claims the prune reaped. */
  touchRecord(record: SessionRecord, nowMs: number): Result<TouchOutcome, StoreError>;
  /** Whether `id`'s record still names this process (its pid and start token). One lstat while the
   * file is the one this store last checked or touched, unchanged: every poll of the watch asks. */
  checkRecord(id: string, self: { pid: number; started: string | undefined }): Result<RecordCheck, StoreError>;
  listRecords(): Result<RecordListing, StoreError>;
  /** Removes `id`'s record only while it still carries `joinToken` (a newer join keeps its own)
   * and, given `heartbeatMs`, only while its heartbeat is still that one (a beat since keeps it).
   * True when no such record is left (removed now, or gone already); false when it stayed. */
  removeRecord(id: string, joinToken: string, heartbeatMs?: number): Result<boolean, StoreError>;

  /** Publishes one message into its recipient's inbox; returns the file's name. */
  deliver(message: BusMessage, sentAtMs: number): Result<string, StoreError>;
  /** The front of `id`'s inbox, exact oldest first: this store keeps an index of the inbox it reads
   * (an lstat per file once, a listing per look only when the front reaches mail newer than its
   * last whole listing). */
  peekInbox(id: string, max: number, time: InboxTime): Result<InboxPeek, StoreError>;
  /** Like peekInbox for the listening watch: a file whose name carries an id in `skip` is not read
   * (mail announced already), and each look lists at most one slice of the folder more, so a poll
   * of a huge inbox costs a slice and reads only what is new. */
  peekUnseen(id: string, max: number, skip: ReadonlySet<string>, time: InboxTime): Result<UnseenMail, StoreError>;
  /** The ids of the mail in `id`'s inbox, from names alone (a whole listing the first time). */
  inboxIds(id: string, nowMs: number): Result<ReadonlySet<string>, StoreError>;
  /** Deletes exactly these inbox files (the ones a read showed); returns the names it removed. */
  consume(id: string, names: readonly string[]): Result<string[], StoreError>;
  /** Moves these inbox files (the ones a read showed) aside for `reader` (a pid): no look at the
   * inbox returns them; returns the names moved. */
  setAside(id: string, names: readonly string[], reader: number): Result<string[], StoreError>;
  /** What is set aside in `id`'s inbox (bounded). */
  listAside(id: string): Result<AsideEntry[], StoreError>;
  /** Deletes these aside entries: they reached the model. */
  dropAside(id: string, entries: readonly AsideEntry[]): Result<void, StoreError>;
  /** Puts these aside entries back at their place in the inbox: they never reached the model. */
  restoreAside(id: string, entries: readonly AsideEntry[]): Result<string[], StoreError>;
  /** Files in `id`'s inbox (0 when it has none): a status badge, from one bounded listing, without
   * reading them. */
  countInbox(id: string): Result<FileCount, StoreError>;
  /** Whether the message file `name` is still in `id`'s inbox (one lstat): not yet read, expired
   * or pruned. */
  hasMessage(id: string, name: string): boolean;
  /** Deletes inbox files whose mtime is older than `beforeMs`, looking at no more than `looksMax`
   * of them (the next call goes on where this one stopped, oldest names first); drops the folder of
   * `id` when it is empty and `dropEmpty` (a pruned session). Says how many files went and how many
   * are left (the count countInbox would give): a status needs no second listing for its badges. */
  pruneInbox(id: string, beforeMs: number, dropEmpty: boolean, looksMax: number): Result<InboxPruned, StoreError>;
  /** The inboxes on disk (session ids), for a prune of those no record names. */
  listInboxes(): Result<string[], StoreError>;
  /** Makes `id`'s inbox folder if missing, so a watch on it can start before its first mail. */
  openInbox(id: string): Result<void, StoreError>;
  /** The folder a watcher hint for `id`'s inbox comes from. */
  inboxPath(id: string): string;

  /** One listing of `claims/`: every claim's key, owner and token, from the names alone. */
  listClaims(): Result<ClaimListing, StoreError>;
  /** The same listing in pages, a slice per call, for a reader that must give the loop back between them. */
  pageClaims(): Result<ClaimPages, StoreError>;
  /** Publishes one claim file per key, and one per identity (an existing file's device and inode,
   * beside its key), each created exclusively; all or none (on a failure the ones made are removed).
   * Checking for conflicts is the caller's: create, list again, back off. */
  createClaims(
    owner: string,
    joinToken: string,
    label: string,
    keys: readonly string[],
    identities?: readonly { key: string; identity: string }[],
    observed?: boolean,
  ): Result<void, StoreError>;
  /** Removes these claim files (own ones being released or backed off, or orphans being reaped). */
  removeClaims(claims: readonly ClaimName[]): Result<void, StoreError>;
  /** Removes the marks of these path claims (they become claims that never lapse, or they went). */
  removeMarks(claims: readonly ClaimName[]): Result<void, StoreError>;
  /** When each of these path claims was made or last stamped (its file's mtime; every name of one
   * claim is a link of one file); a claim not there is left out. */
  claimTimes(claims: readonly ClaimName[]): Result<Map<ClaimName, number>, StoreError>;
  /** Stamps a path claim's file with `nowMs` (an edit of an observed claim's path); false when it is
   * not there. */
  stampClaim(claim: ClaimName, nowMs: number): Result<boolean, StoreError>;

  /** Publishes a handoff's offer whole (replacing none: its id is a new message id). */
  writeOffer(offer: HandoffOffer): Result<void, StoreError>;
  readOffer(id: string): Result<StoredOffer | undefined, StoreError>;
  /** Every offer that reads, at most offersListedMax. */
  listOffers(): Result<StoredOffer[], StoreError>;
  removeOffer(id: string): Result<void, StoreError>;
  /** Moves one claim (its path claim, identity claims and mark) to another holder, the path claim
   * by one rename; false when the path claim was gone, or is no longer the `instance` offered. */
  moveClaim(
    path: ClaimName,
    identities: readonly ClaimName[],
    to: { owner: string; joinToken: string },
    instance: string | undefined,
  ): Result<boolean, StoreError>;
  /** Which create each of these path claims came from (what a handoff offers); a claim not there,
   * or written without one, is left out. */
  claimInstances(claims: readonly ClaimName[]): Result<Map<ClaimName, string>, StoreError>;

  /** Removes what crashed writers left in `tmp/` (temp files last changed before `nowMs -
   * olderThanMs`) and puts back any inbox a crashed prune left there. Returns how many went. */
  sweepTmp(nowMs: number, olderThanMs: number): Result<number, StoreError>;
}
