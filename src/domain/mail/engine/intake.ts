// Mail coming in: claimed from new/ (a scan, or the one entry a watcher hint names) or read again
// from cur/ (intake-reread.ts: what a crash left journaled, what failed to read), and each outcome
// sorted: delivered, or kept in the backlog. A big inbox drains one slice per event-loop turn, so a flood never freezes
// the host; an explicit scan (message:scan) claims everything before it returns, as its hook
// promises. Owns the drain's queue and the names it moved out of new/.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { createBoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Address } from "../address.js";
import { mayBeMailName } from "../envelope.js";
import type { Sender } from "../framing.js";
import { claimedNamesMax, claimSliceMax, hiddenNamesMax, pendingMailMax } from "../limits.js";
import type { MailContext } from "./context.js";
import { exclusively, type IntakeContext, type IntakeParts, type IntakeState, take } from "./intake-context.js";
import { recoverClaimed, retryStranded } from "./intake-reread.js";

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
  /** How much mail its person's hold keeps queued in new/ (as of the last look). */
  heldBack(): number;
}

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
    held: new Set(),
  };
  const scan = (whole: boolean) => scanInbox(ctx, s, whole);
  return {
    scan: (whole = false) => scan(whole),
    scanNow() {
      // After start it may run the start-up claim early, never inside it.
      if (ctx.session.address() === undefined || ctx.session.starting()) return false;
      recoverClaimed(ctx, s, true, scan);
      return scanInbox(ctx, s, true);
    },
    hinted: (name) => claimHinted(ctx, s, name),
    recover: (whole) => recoverClaimed(ctx, s, whole, scan),
    retryStranded: () => retryStranded(ctx, s),
    heldBack: () => (ctx.session.mailMode() === "accept" ? 0 : s.held.size),
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
  if (address === undefined || roomToClaim(ctx) === 0 || admitted(ctx, s, address, [name]).length === 0) return;
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
  const listed = s.queue.splice(0, Math.min(sliceMax, room)).filter((name) => !s.claimedNames.has(name));
  const batch = admitted(ctx, s, address, listed);
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
  // A held name no longer listed was withdrawn by its sender (or taken by a twin): not held any more.
  if (s.held.size > 0) {
    const listed = new Set(names);
    for (const name of s.held) if (!listed.has(name)) s.held.delete(name);
  }
  return names.length > 0;
}

/** What may be claimed of `names`: all of them, unless its person holds mail back; then only
 * replies (the answers to its own asks and requests), each read once where it lies, and the rest
 * stays queued in new/, where its sender may still withdraw it. A file that does not read as mail is
 * claimed as always (the claim sets it aside); one that cannot be read now is looked at again later. */
function admitted(ctx: IntakeContext, s: IntakeState, address: Address, names: readonly string[]): string[] {
  if (ctx.session.mailMode() === "accept") {
    s.held.clear();
    return [...names];
  }
  const taken: string[] = [];
  for (const name of names) {
    if (s.held.has(name)) continue;
    const peeked = ctx.store.readNew(address, name);
    if (peeked.isErr()) continue;
    const found = peeked.value;
    if (found.kind === "gone" || found.kind === "unread") continue;
    if (found.kind === "claimed" && found.envelope.kind !== "reply") s.held.add(name);
    else taken.push(name);
  }
  return taken;
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
