// What the /sessions board draws and what it may do: plain data the extension adapts from the bus
// engine's read-only snapshot, so the board never depends on how the engine stores anything.
// Every string here may have been written by a peer: the board sanitizes it before drawing.

/** How this session (or a peer) hears of new mail: a raised turn, a report at the next turn, or not at all. */
type Listening = "wake" | "next turn" | "not listening";

type MessageKind = "message" | "event" | "ask" | "handoff";

interface BoardSelf {
  id: string;
  /** Absent until this session has a label on the bus. */
  label?: string;
  joined: boolean;
  listening: Listening;
}

/** What the mailbox of this process says of a session: busy or idle, and whom it waits on. */
export interface MailSide {
  state: "idle" | "busy";
  /** The name of the session an ask of it waits on. */
  waitingOn?: string;
  stopped: boolean;
}

export interface SessionRow {
  id: string;
  /** Its bus label; for a session of the mailbox alone, its name (or the start of its id). */
  label: string;
  /** Pi's session name, when it has one. */
  name?: string;
  /** `gone`: the process is provably dead; the row stays until its heartbeat ages out. `mail only`:
   * a running session in this repository that uses the mailbox and is not on the bus. */
  state: "active" | "gone" | "mail only";
  /** Absent when the mailbox is not loaded in this session (or does not list it). */
  mail?: MailSide;
  /** `unknown`: a record written before listening was recorded. */
  listening: Listening | "unknown";
  unread: number;
  /** The count stopped at the listing's bound: there are `unread` files or more. */
  unreadAtLeast?: boolean;
  /** Claim keys this session holds, repository-relative posix paths. */
  claims: readonly string[];
  /** Those of `claims` its edits took (observed): they lapse after its last edit of them. */
  observed: readonly string[];
  cwd: string;
  heartbeatAgeMs: number;
  /** This session's own row: present only once it joined. */
  self: boolean;
}

/** One message of this session's inbox, previewed and never consumed. */
export interface MessageRow {
  type: "message";
  /** The message id: what keeps the selection on this row across repaints. */
  id: string;
  fromId: string;
  fromLabel: string;
  kind: MessageKind;
  text: string;
  paths: readonly string[];
  /** The send time the sender wrote (ISO 8601); a peer's clock, so shown as it came. */
  sentAt: string;
  /** When it landed in the inbox (the file's mtime, epoch ms): the queue's order. */
  arrivalMs: number;
}

/** A message file this build cannot read: named, left on disk, ended by the message TTL. */
export interface UnreadableRow {
  type: "unreadable";
  file: string;
}

export type InboxRow = MessageRow | UnreadableRow;

export interface ClaimRow {
  key: string;
  ownerId: string;
  ownerLabel: string;
  /** Held by this session: the only claims `x` may release. */
  own: boolean;
  /** Taken by an edit, not asked for: it lapses after its holder's last edit of the path. */
  observed: boolean;
  /** The session a standing handoff offers this claim to, if one does. */
  offeredTo?: { id: string; label: string } | undefined;
}

/** A handoff that stands: its sender still holds what it offers, until the recipient accepts. */
interface OfferRow {
  id: string;
  from: { id: string; label: string };
  to: { id: string; label: string };
  keys: readonly string[];
}

export interface BoardSnapshot {
  self: BoardSelf;
  /** This session's mail not yet read by its model (the mailbox's pending), when the mailbox is loaded. */
  mailPending?: number;
  sessions: readonly SessionRow[];
  /** This session's inbox only: the board shows no other session's mail. */
  inbox: readonly InboxRow[];
  /** Every file in that inbox, when the rows (a preview of the first 50) are fewer. */
  inboxFiles?: number | undefined;
  claims: readonly ClaimRow[];
  offers: readonly OfferRow[];
}

export interface ActionOutcome {
  ok: boolean;
  /** One line for the board's status line. */
  message: string;
}

/** A snapshot read in steps, the loop given back between them (a full claims/ is too long a read
 * for one turn of Pi's loop). */
export interface SnapshotRead {
  /** Reads one more slice: undefined while slices are left, the whole snapshot with the last. Throws
   * the bus's own description when the read fails. */
  step(): BoardSnapshot | undefined;
  /** Gives up a read left unfinished (the board closed). */
  cancel(): void;
}

export interface BoardActions {
  /** A read: prunes nothing, consumes nothing. Called by the 1 s poll and after each action. */
  snapshot(): BoardSnapshot;
  /** The same read in steps; when given, the board reads this way, one step per turn of the loop. */
  readSteps?(): SnapshotRead;
  /** The `w` key: stop listening when listening, else start (joining under the derived label when not joined). */
  toggleListening(): ActionOutcome;
  /** The `x` key, after a yes: release one claim this session holds, by its stored key. */
  release(key: string): ActionOutcome;
}
