// The state one mailbox engine keeps, shared by its parts (inbox, outbox, presence, settle).
import type { AgentHost, NoticeLevel } from "../../../ports/mail/agent-host.js";
import type { ConfigFile } from "../../../ports/mail/config-file.js";
import type { MailStore } from "../../../ports/mail/mail-store.js";
import type { Clock, TimerHandle } from "../../../ports/shared/clock.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { ProcessProbe } from "../../../ports/shared/process-probe.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Watcher, WatchHandle } from "../../../ports/shared/watcher.js";
import type { BoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Address } from "../address.js";
import type { Envelope } from "../envelope.js";
import type { Sender } from "../framing.js";
import type { HopState } from "../hop-rules.js";
import type { OwedMail } from "../settle-rules.js";
import type { AutomaticReply } from "./outbox.js";

export interface EngineOptions {
  store: MailStore;
  probe: ProcessProbe;
  clock: Clock;
  watcher: Watcher;
  entropy: Entropy;
  host: AgentHost;
  config: ConfigFile;
  /** fsync each delivered envelope and its folder (on by default in production). */
  durable: boolean;
  /** How often the inbox is polled behind the watcher. */
  pollIntervalMs: number;
  /** Whether to watch new/ at all (off: poll only). */
  watch: boolean;
}

export interface SessionIdentity {
  address: Address;
  name: string | undefined;
  cwd: string;
}

/** What a `message:inbound` listener receives; it may set `handled` to take the mail over. */
export interface InboundMail {
  envelope: Envelope;
  path: string;
  requests: Array<{ envelope: Envelope; path: string }>;
  handled: boolean;
}

export type InboundListener = (mail: InboundMail) => void;

export type AskOutcome =
  | { kind: "answered"; envelope: Envelope; path: string }
  | { kind: "timeout" }
  | { kind: "target-gone" }
  | { kind: "aborted" };

export interface WaitingAsk {
  id: string;
  to: Address;
  finish(outcome: AskOutcome): void;
}

export interface PendingMail extends OwedMail {
  hops: number;
}

export interface EngineState {
  identity: SessionIdentity | undefined;
  closed: boolean;
  busy: boolean;
  hops: HopState;
  /** Injected, not yet read, in injection order. */
  pending: Map<string, PendingMail>;
  /** Mail injected for the model and not yet read, by id: its file name in cur/ (the claim journal). */
  unread: Map<string, string>;
  /** Names claimed into cur/ whose read failed (EMFILE, EIO): journaled, read again at each poll. */
  stranded: Map<string, { error: StoreError; recovering: boolean }>;
  /** Journaled names a crash left that recovery has not reached yet; undefined until the journal
   * was read. No claim happens before recovery is done. */
  recovering: string[] | undefined;
  /** Names the last listing of new/ found that are not claimed yet: a big inbox drains a slice per turn. */
  queue: string[];
  /** The last listing stopped at its bound: more waits than it named. */
  listingTruncated: boolean;
  /** A later slice of the drain is scheduled. */
  drainScheduled: boolean;
  /** Another process owns this address's inbox: this one sends, but claims and records nothing. */
  guest: boolean;
  /** Unique to this engine: names its owner record and the temp files of its attempts. */
  ownerToken: string | undefined;
  /** The owner record this process wrote while it owns the inbox. */
  ownerText: string | undefined;
  /** When ownership was last checked (a guest tries to take over, an owner checks it still is). */
  ownerCheckedMs: number;
  /** The identity of a start whose open failed, retried until it opens. */
  opening: SessionIdentity | undefined;
  /** An open failed since the last success: its success is told. */
  openFailed: boolean;
  openRetry: TimerHandle | undefined;
  /** A write of the journal is scheduled for a later turn (read mail leaving it). */
  journalWriteScheduled: boolean;
  /** The journal still lists mail read since it was written. */
  journalDirty: boolean;
  /** Read since the last settle (requests, asks, messages). */
  read: OwedMail[];
  /** Answers of a settle that could not be written: still owed, tried again at each poll. */
  owedReplies: AutomaticReply[];
  /** Ids of `read` not answered yet: the footer's "read", without a pass over `read`. */
  readOwed: Set<string>;
  /** Requests held across stopped runs. */
  held: OwedMail[];
  /** Requests, asks and messages this session received, by id, for session_mail_reply's checks
   * (the newest rememberedIdsMax). */
  received: Map<string, OwedMail>;
  /** What asks.json holds: asks received and not answered (id → sender), and answered ask ids. */
  askLedger: { open: Map<string, Address>; answered: string[] };
  /** Asks and requests answered (by the tool or at a settle): never answered twice. */
  answered: BoundedIdSet;
  /** Envelope ids already shown or handed over: never delivered twice. */
  delivered: BoundedIdSet;
  /** Requests and asks this session sent that have no answer yet. */
  awaiting: BoundedIdSet;
  /** Asks of this session that stopped waiting: a late answer is delivered as mail. */
  abandonedAsks: BoundedIdSet;
  /** Mail a stopped run never read, already answered failed; if it still enters later, it is void. */
  dropped: BoundedIdSet;
  waiting: WaitingAsk | undefined;
  /** The target of an ask being written: the record says so before the ask can reach it. */
  asking: Address | undefined;
  listeners: InboundListener[];
  /** Recent verdicts on senders' records, for labels: the record's text, when, and what it showed. */
  senders: Map<Address, { text: string; atMs: number; sender: Sender }>;
  /** Entries of new/ never read as mail that a notice named, at most hiddenNamesMax. */
  hiddenNamed: number;
  warned: Set<string>;
  lastRecordText: string | undefined;
  /** When this session last wrote its record (presence.ts refreshes it from the poll); unset until the first write. */
  lastRecordWriteMs?: number;
  watch: WatchHandle | undefined;
  poll: TimerHandle | undefined;
  /** Inside sessionStarted: nothing is emitted from there. */
  starting: boolean;
  scanning: boolean;
  rescan: boolean;
  /** Names this session moved out of new/ whose watcher hint may still come (and claims nothing). */
  claimedNames: BoundedIdSet;
  /** The footer changed during a scan: it is shown once, when the scan ends. */
  footerStale: boolean;
  /** The footer text last shown, so an unchanged one is not shown again. */
  footerShown: string | undefined;
  polls: number;
  /** The sweep and prune of a start, run by the first poll. */
  startChores: (() => void) | undefined;
}

export interface EngineContext extends EngineOptions {
  state: EngineState;
  warnOnce(key: string, text: string, level?: NoticeLevel): void;
  /** Every notice goes through here: sanitized and bounded. */
  notify(text: string, level: NoticeLevel): void;
  refreshFooter(): void;
  writeRecord(): void;
}
