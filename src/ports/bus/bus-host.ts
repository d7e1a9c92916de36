import type { BusKind } from "../../domain/bus/bus-files.js";
import type { StoreError } from "../shared/store-error.js";

/** One message a notice announces: a preview, never the whole body (`inbox` consumes it). */
export interface NoticeMessage {
  id: string;
  from: string;
  fromLabel: string;
  kind: BusKind;
  /** The text clipped (200 code points, 800 for a handoff); raw: the renderer sanitizes it. */
  preview: string;
  clipped: boolean;
  paths: string[];
  /** How many messages this line stands for: the same text sent again within the duplicate window
   * is one line with a count (absent: 1). */
  repeats?: number;
  /** The ids of the repeats folded into this line: announced with it. */
  foldedIds?: string[];
}

/** New mail, announced once: each message id is in at most one notice of an engine's life. */
export interface MailNotice {
  /** wake: raise a turn with it now (the engine checked the agent is idle); next-turn: add it to
   * the prompt that is starting. */
  delivery: "wake" | "next-turn";
  /** Grows with every notice of one engine. */
  seq: number;
  messages: NoticeMessage[];
  /** How many of them are handoffs: the notice headlines those as work assigned. */
  handoffs: number;
  /** Some of the mail came this many hops into a chain of sessions waking each other, at or past
   * the limit: it did not wake this session, and the notice says why. */
  atHopLimit?: { hops: number; limit: number };
}

export type BusWarning =
  /** Another process of this session id joined after this one and owns the record now: this
   * one stopped listening and heartbeating and is off the bus until it joins again. */
  | { kind: "displaced"; pid: number | undefined }
  /** This session's record was gone at a heartbeat (pruned while the process was suspended): it
   * joined again under `label` (undefined: it could not, and is off the bus), and the claims it
   * held are released. */
  | { kind: "record-lost"; label: string | undefined }
  /** Bus folders of this user's were found open to other users (group or others could write them:
   * a `chmod -R` by mistake), so what was in them may have been added, removed or renamed by another
   * user. The store closed them again (0700) and set aside every file or folder another user owned
   * in them (moved where nothing reads it, never counted as a claim, record or message). `path` and
   * `mode`: the folder found first, as it was; `folders`: how many were closed; `ancestor`: a folder
   * above the bus folder still open to others, which the store does not change (the person must). */
  | {
      kind: "bus-opened";
      path: string;
      mode: number;
      folders: number;
      setAside: number;
      ancestor: { path: string; mode: number } | undefined;
    }
  /** Mail from `fromLabels` came `hops` hops into a chain of sessions waking each other, at or past
   * `limit`: it did not wake this session and waits for the next prompt. */
  | { kind: "hop-limit"; fromLabels: string[]; hops: number; limit: number }
  /** Background work that failed; each kind is warned once until it succeeds again. */
  | { kind: "store-failed"; op: "heartbeat" | "watch" | "leave"; error: StoreError };

/** The session the bus engine serves (Pi, the simulator's fake agent). The engine decides when to
 * raise a turn; the host only delivers. Calls come from the engine's own stack or its timers. */
export interface BusHost {
  raiseTurn(notice: MailNotice): void;
  /** Whether the agent could take a raised turn now. The engine tracks runs itself; a host that knows
   * better (Pi counts a run as started before its agent_start) says so, and the turn waits for the
   * run's settle. Absent: the engine's own tracking decides. */
  isIdle?(): boolean;
  /** Which of these message ids a result of `inbox` recorded in the session carries (what reached
   * the model). Absent: the host records nothing, and a read deletes what it shows at once. */
  recorded?(messageIds: readonly string[]): ReadonlySet<string>;
  warn(warning: BusWarning): void;
  /** The hop count another part of the session holds for the turn in progress (the mailbox's, for
   * a turn its mail raised): what a send carries is the higher of it and the bus's own. Absent: 0. */
  peerTurnHops?(): number;
  /** The names of the other running sessions the mailbox of this process sees (its own excluded): a
   * label may not be one of them, so mail to that name never turns ambiguous. Absent: none known. */
  mailNames?(): readonly { id: string; name: string }[];
  /** Its person holds the session's mail back or refuses it (the mailbox's `/mailbox hold` or
   * `refuse`): bus mail then raises no turn and waits for the next prompt. Absent: never held. */
  wakeHeld?(): boolean;
  /** This session's unread bus mail changed: `files` in its inbox (`atLeast`: more than one listing
   * counts), or undefined for none. Told only on a change. */
  unreadChanged?(unread: { files: number; atLeast: boolean } | undefined): void;
}
