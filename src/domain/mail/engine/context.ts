// What every part of one mailbox engine reaches: the ports it acts through, the session cell, the
// notices and the event wrapper. No part is in it: each part's factory names the parts it uses.
import type { AgentHost } from "../../../ports/mail/agent-host.js";
import type { ConfigFile } from "../../../ports/mail/config-file.js";
import type { MailStore } from "../../../ports/mail/mail-store.js";
import type { Clock } from "../../../ports/shared/clock.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { ProcessProbe } from "../../../ports/shared/process-probe.js";
import type { Watcher } from "../../../ports/shared/watcher.js";
import type { Address } from "../address.js";
import type { Envelope } from "../envelope.js";
import type { OwedMail } from "../settle-rules.js";
import type { Notices } from "./notices.js";
import type { SessionCell } from "./session-cell.js";

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

export type { MailIdentity } from "./session-cell.js";

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

/** What every part reaches: the ports, the session cell, and the one way to tell the person. */
export interface MailContext extends EngineOptions {
  session: SessionCell;
  notices: Notices;
  /** Runs `fn` as one engine event: when the outermost event ends, the footer is shown once. The
   * facade's calls and the clock's and watcher's callbacks are events already; a part wraps only
   * a callback it hands to anything else (an ask's abort signal). */
  event<T>(fn: () => T): T;
}
