// What the bus keeps on disk, as the engine sees it: one record per joined session, one file per
// message in a recipient's inbox, one file per claimed path. Codecs and shape checks live beside
// these (records.ts, bus-message.ts, claim-key.ts); the store only moves bytes.

/** The kinds of bus mail. Only an `event` may go to `*`; a `handoff` assigns work. */
export type BusKind = "message" | "event" | "ask" | "handoff";

/** `sessions/<id>.json`: a joined session. Its mtime is the heartbeat (rewritten every 10 s). */
export interface SessionRecord {
  /** Pi's session id: the inbox folder's name, so a resumed session finds its unread mail. */
  id: string;
  /** How peers address it: unique among live sessions (case-insensitive). */
  label: string;
  /** The process that owns the record, judged like a mail running record (pid + start token). This
   * build always writes it; a record without one (another implementation's) is judged by its
   * heartbeat alone. */
  pid?: number;
  started?: string;
  bootId?: string;
  pidNamespace?: string;
  /** New at every join, in the name of each claim file: a claim whose token is not the owner's
   * current record's is an orphan, so a name is never reused and a reaper never races a taker. */
  joinToken: string;
  /** Canonical working directory and the canonical top of its worktree (claims are relative to it). */
  cwd: string;
  root: string;
  /** Whether this session listens for mail, and whether new mail raises a turn. */
  armed: boolean;
  wake: boolean;
  /** ISO 8601 time of the join. */
  joinedAt: string;
  /** false: this session's edits take no claims of their own (absent: they do). */
  observe?: boolean;
  /** Pi's session name when it has one: peers reach the session by it too, and a label may not be
   * another running session's name. */
  name?: string;
  /** true: the label was asked for, and stays when Pi's name changes (absent: it follows the name). */
  named?: boolean;
}

/** `inbox/<recipient id>/<name>`: one message. Its mtime is the arrival order and the TTL clock. */
export interface BusMessage {
  id: string;
  /** Sender's session id and the label it had when it sent. */
  from: string;
  fromLabel: string;
  /** The recipient's session id; `*` was fanned out into one file per recipient. */
  to: string;
  kind: BusKind;
  text: string;
  /** Repository-relative posix paths the message concerns. */
  paths: string[];
  /** ISO 8601 send time (the sender's clock: shown, never used for order). */
  sentAt: string;
  /** The sender's turn hop count when it sent: how many sessions woke each other on the way here
   * (0: a person's turn). A file without the field reads 0. */
  hops: number;
}

/** One claim as a listing of `claims/` shows it, without reading the file: the path key, the
 * owner's session id and the join token it claimed under are all in the file's name. */
export interface ClaimName {
  /** Repository-relative posix path: `src/api`, `README.md`. Never empty, never `.`. */
  key: string;
  owner: string;
  joinToken: string;
  /** Set on the second name of an existing file's claim: its `<device>-<inode>`. */
  identity?: string | undefined;
}

/** `offers/<id>.json`: a handoff's offer of claims. The sender keeps the claims until the recipient
 * accepts (they move to it in one step) or the offer lapses (either side leaves or is gone, or the
 * message TTL passes). `id` is the handoff message's id. */
export interface HandoffOffer {
  id: string;
  from: string;
  /** The sender's join token when it offered: the claims offered are the ones under it. */
  fromToken: string;
  fromLabel: string;
  to: string;
  /** The claim keys offered, each held by the sender under `fromToken` when it offered. */
  keys: string[];
  /** The create each key's claim came from when offered ("" when unknown): a claim made again after
   * a release is not the one offered. Absent in offers of older builds. */
  instances?: string[];
  /** ISO 8601 (the sender's clock; the file's mtime is what ages the offer). */
  offeredAt: string;
}
