// What every function of the intake reaches, in its two files (intake.ts: claims from new/;
// intake-reread.ts: reads again from cur/): the ports and parts the factory was given, the drain's
// state, and the few steps both take: who may read now, one claim at a time, an outcome sorted.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import type { BoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Sender } from "../framing.js";
import type { Backlog } from "./backlog.js";
import type { MailContext } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Journal } from "./journal.js";
import type { Ownership } from "./ownership.js";

export interface IntakeParts {
  journal: Journal;
  backlog: Backlog;
  ownership: Ownership;
  delivery: Delivery;
  /** The owner check when it is due, run before a claim (the poll's). */
  checkOwner(): void;
}

export interface IntakeState {
  /** Names the last listing of new/ found that are not claimed yet: a big inbox drains a slice per turn. */
  queue: string[];
  /** The last listing stopped at its bound: more waits than it named. */
  listingTruncated: boolean;
  /** A later slice of the drain is scheduled. */
  drainScheduled: boolean;
  scanning: boolean;
  rescan: boolean;
  /** The last claim stopped with mail still waiting: the window full, or the journal unwritten. */
  blocked: boolean;
  /** Names this session moved out of new/ whose watcher hint may still come (and claims nothing). */
  claimedNames: BoundedIdSet;
  /** Entries of new/ never read as mail that a notice named, at most hiddenNamesMax. */
  hiddenNamed: number;
  /** While its person holds mail back: the names left queued in new/ (read once each, not replies). */
  held: Set<string>;
}

/** What the intake's functions reach: the ports and the parts its factory was given. */
export type IntakeContext = MailContext & IntakeParts;

export function exclusively(s: IntakeState, claim: () => void): void {
  s.scanning = true;
  try {
    claim();
  } finally {
    s.scanning = false;
  }
}

/** The owner of this address's inbox, when it may read from cur/ now. */
export function reader(ctx: IntakeContext, s: IntakeState) {
  const address = ctx.session.address();
  if (address === undefined || ctx.session.closed() || ctx.ownership.guest() || s.scanning) return undefined;
  return address;
}

/** An outcome of a claim or a read from cur/: a failed read stays in the backlog (journaled); the
 * rest is delivered. */
export function take(
  ctx: IntakeContext,
  outcome: ClaimOutcome,
  senders: Map<string, Sender>,
  recovering: boolean,
): void {
  if (outcome.kind === "unread") {
    // Remembered with how it was claimed: one a crash left may have been shown before it.
    ctx.backlog.strand(outcome.name, { error: outcome.error, recovering });
    ctx.notices.once(`unread:${outcome.name}`, { kind: "read-failed", path: outcome.path, error: outcome.error });
    return;
  }
  ctx.backlog.unstrand(outcome.name);
  ctx.delivery.accept(outcome, senders, recovering);
}
