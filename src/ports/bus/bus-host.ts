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
}

export type BusWarning =
  /** Another process of this session id joined after this one and owns the record now (A34): this
   * one stopped listening and heartbeating and is off the bus until it joins again. */
  | { kind: "displaced"; pid: number }
  /** This session's record was gone at a heartbeat (pruned while the process was suspended): it
   * joined again under `label` (undefined: it could not, and is off the bus), and the claims it
   * held are released. */
  | { kind: "record-lost"; label: string | undefined }
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
  warn(warning: BusWarning): void;
}
