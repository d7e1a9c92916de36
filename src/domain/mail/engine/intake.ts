// Mail coming in: claimed from new/ (a scan, or the one entry a watcher hint names) or read again
// from cur/ (what a crash left journaled, what failed to read), and each outcome sorted: delivered,
// or kept in the backlog. A big inbox drains one slice per event-loop turn, so a flood never freezes
// the host; an explicit scan (message:scan) claims everything before it returns, as its hook
// promises. Owns the drain's queue and the names it moved out of new/.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { BoundedIdSet } from "../../shared/bounded-id-set.js";
import { createBoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Address } from "../address.js";
import { mayBeMailName } from "../envelope.js";
import type { Sender } from "../framing.js";
import { claimedNamesMax, claimSliceMax, hiddenNamesMax, pendingMailMax } from "../limits.js";
import type { Backlog } from "./backlog.js";
import type { MailContext } from "./context.js";
import type { Delivery } from "./delivery.js";
import type { Journal } from "./journal.js";
import type { Ownership } from "./ownership.js";

export interface Intake {
  /** Claims what waits in new/: everything when `whole`, before this returns; else one slice now
   * and the rest on later turns of the event loop. */
  scan(whole?: boolean): void;
  /** message:scan: recovers and claims everything waiting before it returns (never inside the
   * start); true when it did, false when it could not claim now or stopped before the end (the
   * mailbox not open, a twin process, inside a claim, the claim window full). */
  scanNow(): boolean;
  /** A watcher hint naming one entry of new/ (or none). */
  hinted(name: string | undefined): void;
  /** After a restart: mail the journal says was claimed and not yet read, and that the host never
   * showed. Every journaled name is recovered, a slice per turn unless `whole`; names not reached
   * yet stay journaled, so a crash during recovery loses none. Then what waits in new/ is claimed. */
  recover(whole: boolean): void;
  /** Mail whose read failed, read again (at each poll) until it is read or set aside. */
  retryStranded(): void;
}

interface IntakeParts {
  journal: Journal;
  backlog: Backlog;
  ownership: Ownership;
  delivery: Delivery;
  /** The owner check when it is due, run before a claim (the poll's). */
  checkOwner(): void;
}

interface IntakeState {
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
}

/** What the intake's functions reach: the ports and the parts its factory was given. */
type IntakeContext = MailContext & IntakeParts;

export function createIntake(mail: MailContext, parts: IntakeParts): Intake {
  const ctx: IntakeContext = { ...mail, ...parts };
  const s: IntakeState = {
    queue: [],
    listingTruncated: false,
    drainScheduled: false,
    scanning: false,
    rescan: false,
    blocked: false,
    claimedNames: createBoundedIdSet(claimedNamesMax),
    hiddenNamed: 0,
  };
  return {
    scan: (whole = false) => scanInbox(ctx, s, whole),
    scanNow() {
      // After start it may run the start-up claim early, never inside it.
      if (ctx.session.address() === undefined || ctx.session.starting()) return false;
      recoverClaimed(ctx, s, true);
      return scanInbox(ctx, s, true);
    },
    hinted: (name) => claimHinted(ctx, s, name),
    recover: (whole) => recoverClaimed(ctx, s, whole),
    retryStranded: () => retryStranded(ctx, s),
  };
}

/** True when nothing is left waiting that this scan could have claimed. */
function scanInbox(ctx: IntakeContext, s: IntakeState, whole: boolean): boolean {
  const address = claimable(ctx, s);
  if (address === undefined) return false;
  s.blocked = false;
  exclusively(s, () => {
    if (whole) {
      do {
        s.rescan = false;
        if (claimSlice(ctx, s, address, Number.POSITIVE_INFINITY)) s.rescan = true;
      } while (s.rescan && !ctx.session.closed() && roomToClaim(ctx) > 0);
      return;
    }
    if (claimSlice(ctx, s, address, claimSliceMax)) s.rescan = true;
  });
  if (!s.rescan) return !s.blocked;
  drainLater(ctx, s);
  return false;
}

/** The shortest path from a sender's rename to the model: the hinted entry is claimed without
 * listing the folder. A hint without a name, or for a name that cannot be mail, scans; mail whose
 * hint was lost waits for the poll. */
function claimHinted(ctx: IntakeContext, s: IntakeState, name: string | undefined): void {
  if (name === undefined || !mayBeMailName(name) || s.scanning) {
    scanInbox(ctx, s, false);
    return;
  }
  // Claimed already (by a scan before its hint came), or the hint of our claim moving it out of
  // new/: names are unique, so a claimed name is never mail again.
  if (s.claimedNames.has(name)) return;
  const address = claimable(ctx, s);
  if (address === undefined || roomToClaim(ctx) === 0) return;
  s.scanning = true;
  try {
    claimOne(ctx, s, address, name);
  } finally {
    s.scanning = false;
  }
  // A listener asked for a scan meanwhile.
  if (s.rescan) scanInbox(ctx, s, false);
}

/** The hinted claim: one store call journals and claims (and, for a late hint of a name handled
 * long ago or by another process, costs one lstat and writes nothing: during a drain of a big
 * inbox every claim of ours comes back as such a hint). */
function claimOne(ctx: IntakeContext, s: IntakeState, address: Address, name: string): void {
  const journal = ctx.journal.claiming([name]);
  const claimed = ctx.store.claimHinted(address, name, journal);
  if (claimed.isErr()) {
    const { step, error } = claimed.error;
    if (step === "journal") {
      journalUnwritten(ctx, s, error);
      return;
    }
    ctx.journal.wroteClaiming();
    claimFailed(ctx, name, error);
  } else {
    const outcome = claimed.value;
    // A stale hint: nothing written.
    if (outcome === undefined) return;
    ctx.journal.wroteClaiming();
    took(ctx, s, name, outcome, new Map());
  }
  // A name not claimed (or claimed and not to be read) leaves the journal.
  ctx.journal.rewriteIfChanged(journal);
}

function claimable(ctx: IntakeContext, s: IntakeState): Address | undefined {
  const address = ctx.session.address();
  if (address === undefined || ctx.session.closed() || ctx.ownership.guest() || !ctx.backlog.ready()) return undefined;
  // A wake can come before the poll after a long stop (SIGSTOP, a suspended machine): a reader in
  // another pid namespace may have judged this session closed by its unrefreshed record and pruned
  // its folder, and a second process of this session taken the inbox. Due then, the check says so.
  if (!s.scanning) ctx.checkOwner();
  if (ctx.ownership.guest()) return undefined;
  if (s.scanning) {
    s.rescan = true;
    return undefined;
  }
  return address;
}

/** How much more may be claimed before the model reads what it was given (pendingMailMax binds). */
function roomToClaim(ctx: IntakeContext): number {
  return Math.max(0, pendingMailMax - ctx.journal.unreadCount() - ctx.backlog.strandedCount());
}

function exclusively(s: IntakeState, claim: () => void): void {
  s.scanning = true;
  try {
    claim();
  } finally {
    s.scanning = false;
  }
}

/** The rest of a drain, on a later turn (one turn scheduled at a time). */
function drainLater(ctx: IntakeContext, s: IntakeState): void {
  if (s.drainScheduled || ctx.session.closed()) return;
  s.drainScheduled = true;
  ctx.clock.defer(() => {
    s.drainScheduled = false;
    if (ctx.session.closed()) return;
    s.rescan = false;
    scanInbox(ctx, s, false);
  });
}

/** Claims up to `sliceMax` names from what the last listing left, listing new/ when nothing is
 * left; true when more is waiting. */
function claimSlice(ctx: IntakeContext, s: IntakeState, address: Address, sliceMax: number): boolean {
  if (s.queue.length === 0 && !listInbox(ctx, s, address)) return false;
  const room = roomToClaim(ctx);
  if (room === 0) {
    s.blocked = true;
    return false;
  }
  // A name listed on an earlier turn may have been claimed since through its watcher hint.
  const batch = s.queue.splice(0, Math.min(sliceMax, room)).filter((name) => !s.claimedNames.has(name));
  if (batch.length > 0 && !claimNames(ctx, s, address, batch)) {
    s.blocked = true;
    return false;
  }
  return s.queue.length > 0 || s.listingTruncated;
}

/** Lists new/ into the queue; false when nothing waits or it cannot be read. */
function listInbox(ctx: IntakeContext, s: IntakeState, address: Address): boolean {
  const listing = ctx.store.listNew(address);
  if (listing.isErr()) {
    ctx.notices.once(`list:${listing.error.kind}`, { kind: "inbox-unreadable", error: listing.error });
    return false;
  }
  const { names, hidden, hiddenCount, truncated } = listing.value;
  warnHidden(ctx, s, hidden, hiddenCount);
  s.queue = names;
  s.listingTruncated = truncated;
  return names.length > 0;
}

/** Entries of new/ never read as mail: the first hiddenNamesMax of a session are named one by
 * one, the rest told in one summary (a folder of 20,000 dot-files is one notice, not 20,000). */
function warnHidden(ctx: IntakeContext, s: IntakeState, hidden: readonly string[], hiddenCount: number): void {
  let unnamed = hiddenCount - hidden.length;
  for (const name of hidden) {
    if (ctx.notices.told(`hidden:${name}`)) continue;
    if (s.hiddenNamed >= hiddenNamesMax) {
      unnamed++;
      continue;
    }
    s.hiddenNamed++;
    ctx.notices.once(`hidden:${name}`, { kind: "hidden", name });
  }
  if (unnamed > 0) ctx.notices.once("hidden:more", { kind: "hidden-more", count: unnamed, namedMax: hiddenNamesMax });
}

function claimNames(ctx: IntakeContext, s: IntakeState, address: Address, batch: readonly string[]): boolean {
  // The journal names what was claimed and not yet read: a restart delivers what a crash left
  // claimed but never shown (or shown but lost from the host's queue before it was read).
  const journaled = ctx.journal.writeClaiming(batch);
  if (journaled.isErr()) {
    journalUnwritten(ctx, s, journaled.error);
    return false;
  }
  const senders = new Map<string, Sender>();
  for (const name of batch) {
    if (ctx.session.closed()) break;
    const claimed = ctx.store.claim(address, name);
    if (claimed.isErr()) claimFailed(ctx, name, claimed.error);
    else took(ctx, s, name, claimed.value, senders);
  }
  ctx.journal.rewriteIfChanged(journaled.value);
  return true;
}

/** Without the journal a crash after the claim would lose the mail: it stays in new/ for a later scan. */
function journalUnwritten(ctx: IntakeContext, s: IntakeState, error: StoreError): void {
  ctx.notices.once("journal", { kind: "journal-unwritten", error });
  s.queue = [];
}

/** Not moved: it is still in new/ (or gone), and a later scan tries again. */
function claimFailed(ctx: IntakeContext, name: string, error: StoreError): void {
  ctx.notices.once(`claim:${name}`, { kind: "claim-failed", name, error });
}

function took(
  ctx: IntakeContext,
  s: IntakeState,
  name: string,
  outcome: ClaimOutcome,
  senders: Map<string, Sender>,
): void {
  if (outcome.kind !== "gone" && ctx.watch) s.claimedNames.add(name);
  take(ctx, outcome, senders, false);
}

/** The owner of this address's inbox, when it may read from cur/ now. */
function reader(ctx: IntakeContext, s: IntakeState) {
  const address = ctx.session.address();
  if (address === undefined || ctx.session.closed() || ctx.ownership.guest() || s.scanning) return undefined;
  return address;
}

/** An outcome of a claim or a read from cur/: a failed read stays in the backlog (journaled); the
 * rest is delivered. */
function take(ctx: IntakeContext, outcome: ClaimOutcome, senders: Map<string, Sender>, recovering: boolean): void {
  if (outcome.kind === "unread") {
    // Remembered with how it was claimed: one a crash left may have been shown before it.
    ctx.backlog.strand(outcome.name, { error: outcome.error, recovering });
    ctx.notices.once(`unread:${outcome.name}`, { kind: "read-failed", path: outcome.path, error: outcome.error });
    return;
  }
  ctx.backlog.unstrand(outcome.name);
  ctx.delivery.accept(outcome, senders, recovering);
}

function retryStranded(ctx: IntakeContext, s: IntakeState): void {
  const address = reader(ctx, s);
  if (address === undefined || ctx.backlog.strandedCount() === 0) return;
  exclusively(s, () => {
    const before = ctx.journal.names();
    const senders = new Map<string, Sender>();
    for (const [name, { recovering }] of [...ctx.backlog.stranded()].slice(0, claimSliceMax)) {
      const read = ctx.store.readCur(address, name);
      if (read.isOk()) take(ctx, read.value, senders, recovering);
    }
    ctx.journal.rewriteIfChanged(before);
  });
}

function recoverClaimed(ctx: IntakeContext, s: IntakeState, whole: boolean): void {
  const address = reader(ctx, s);
  if (address === undefined || ctx.backlog.ready()) return;
  if (ctx.backlog.recovering() === undefined && !readJournal(ctx)) return;
  const pending = ctx.backlog.recovering() ?? [];
  if (pending.length === 0) {
    scanInbox(ctx, s, whole);
    return;
  }
  exclusively(s, () => {
    const senders = new Map<string, Sender>();
    do {
      for (const name of pending.splice(0, claimSliceMax)) {
        const read = ctx.store.readCur(address, name);
        if (read.isOk()) take(ctx, read.value, senders, true);
        else ctx.backlog.strand(name, { error: read.error, recovering: true });
      }
    } while (whole && pending.length > 0 && !ctx.session.closed());
    ctx.journal.write();
  });
  if (pending.length > 0) {
    ctx.clock.defer(() => recoverClaimed(ctx, s, false));
    return;
  }
  // Recovered: what waits in new/ is claimed now.
  scanInbox(ctx, s, whole);
}

/** Reads the journal a crash may have left; false when it cannot be read yet. */
function readJournal(ctx: IntakeContext): boolean {
  const journal = ctx.store.readClaimJournal(ctx.session.address()!);
  if (journal.isErr()) {
    // Claims wait: a journal written now would forget what the unread one names. The poll retries.
    ctx.notices.once("journal-read", { kind: "journal-unreadable", error: journal.error });
    return false;
  }
  // A link, FIFO or folder where the journal belongs was never a journal (a hostile process put
  // it there): nothing to recover, nothing to say. Text that does not parse may have been one.
  const damaged = journal.value.damaged;
  if (damaged !== undefined && !["symlink", "not-a-file", "foreign-owner"].includes(damaged))
    ctx.notices.once("journal-read", { kind: "journal-damaged", damage: damaged });
  ctx.backlog.setRecovering(journal.value.names);
  return true;
}
