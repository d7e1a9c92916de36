// Claiming waiting mail: a scan of new/, or the one entry a watcher hint names. A big inbox drains
// one slice per event-loop turn, so a flood never freezes the host; an explicit scan (message:scan)
// claims everything before it returns, as its hook promises.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import { sanitizeField } from "../../shared/text/sanitize.js";
import type { Address } from "../address.js";
import { mayBeMailName } from "../envelope.js";
import type { Sender } from "../framing.js";
import { claimSliceMax, hiddenNamesMax, labelFieldCharsMax, pendingMailMax } from "../limits.js";
import { describeStoreError as describe } from "../store-errors.js";
import type { EngineContext } from "./context.js";
import { accept, journalNames, writeJournal } from "./delivery.js";

/** Claims what waits in new/: everything when `whole`, before this returns; else one slice now and
 * the rest on later turns of the event loop. */
export function scanInbox(ctx: EngineContext, whole = false): void {
  const address = claimable(ctx);
  if (address === undefined) return;
  const { state } = ctx;
  exclusively(ctx, () => {
    if (whole) {
      do {
        state.rescan = false;
        if (claimSlice(ctx, address, Number.POSITIVE_INFINITY)) state.rescan = true;
      } while (state.rescan && !state.closed && roomToClaim(ctx) > 0);
      return;
    }
    if (claimSlice(ctx, address, claimSliceMax)) state.rescan = true;
  });
  if (state.rescan) drainLater(ctx);
}

/** A watcher hint naming one entry of new/: that entry is claimed without listing the folder, the
 * shortest path from a sender's rename to the model. A hint without a name, or for a name that
 * cannot be mail, scans; mail whose hint was lost waits for the poll. */
export function claimHinted(ctx: EngineContext, name: string | undefined): void {
  const { state } = ctx;
  if (name === undefined || !mayBeMailName(name) || state.scanning) {
    scanInbox(ctx);
    return;
  }
  // Claimed already (by a scan before its hint came), or the hint of our claim moving it out of
  // new/: names are unique, so a claimed name is never mail again.
  if (state.claimedNames.has(name)) return;
  const address = claimable(ctx);
  if (address === undefined || roomToClaim(ctx) === 0) return;
  // A late hint for a name handled long ago (or by another process) costs one lstat, never a
  // journal write: during a drain of a big inbox every claim of ours comes back as such a hint.
  if (!ctx.store.isWaiting(address, name)) return;
  exclusively(ctx, () => claimNames(ctx, address, [name]));
  // A listener asked for a scan meanwhile.
  if (state.rescan) scanInbox(ctx);
}

function claimable(ctx: EngineContext): Address | undefined {
  const { state } = ctx;
  if (state.identity === undefined || state.closed || state.guest || !ready(ctx)) return undefined;
  if (state.scanning) {
    state.rescan = true;
    return undefined;
  }
  return state.identity.address;
}

/** Claims wait until what a crash left claimed is recovered. */
function ready(ctx: EngineContext): boolean {
  return ctx.state.recovering !== undefined && ctx.state.recovering.length === 0;
}

/** How much more may be claimed before the model reads what it was given. */
function roomToClaim(ctx: EngineContext): number {
  return Math.max(0, pendingMailMax - ctx.state.unread.size - ctx.state.stranded.size);
}

function exclusively(ctx: EngineContext, claim: () => void): void {
  const { state } = ctx;
  state.scanning = true;
  try {
    claim();
  } finally {
    state.scanning = false;
    if (state.footerStale) ctx.refreshFooter();
  }
}

/** The rest of a drain, on a later turn (one turn scheduled at a time). */
function drainLater(ctx: EngineContext): void {
  const { state } = ctx;
  if (state.drainScheduled || state.closed) return;
  state.drainScheduled = true;
  ctx.clock.defer(() => {
    state.drainScheduled = false;
    if (state.closed) return;
    state.rescan = false;
    scanInbox(ctx);
  });
}

/** Claims up to `sliceMax` names from what the last listing left, listing new/ when nothing is
 * left; true when more is waiting. */
function claimSlice(ctx: EngineContext, address: Address, sliceMax: number): boolean {
  const { state } = ctx;
  if (state.queue.length === 0 && !listInbox(ctx, address)) return false;
  const room = roomToClaim(ctx);
  if (room === 0) return false;
  // A name listed on an earlier turn may have been claimed since through its watcher hint.
  const batch = state.queue.splice(0, Math.min(sliceMax, room)).filter((name) => !state.claimedNames.has(name));
  if (batch.length > 0) claimNames(ctx, address, batch);
  return state.queue.length > 0 || state.listingTruncated;
}

/** Lists new/ into the queue; false when nothing waits or it cannot be read. */
function listInbox(ctx: EngineContext, address: Address): boolean {
  const listing = ctx.store.listNew(address);
  if (listing.isErr()) {
    ctx.warnOnce(`list:${listing.error.kind}`, `Could not read this session's inbox: ${describe(listing.error)}`);
    return false;
  }
  const { names, hidden, hiddenCount, truncated } = listing.value;
  warnHidden(ctx, hidden, hiddenCount);
  ctx.state.queue = names;
  ctx.state.listingTruncated = truncated;
  return names.length > 0;
}

/** Entries of new/ never read as mail: the first hiddenNamesMax of a session are named one by
 * one, the rest told in one summary (a folder of 20,000 dot-files is one notice, not 20,000). */
function warnHidden(ctx: EngineContext, hidden: readonly string[], hiddenCount: number): void {
  const { state } = ctx;
  let unnamed = hiddenCount - hidden.length;
  for (const name of hidden) {
    if (state.warned.has(`hidden:${name}`)) continue;
    if (state.hiddenNamed >= hiddenNamesMax) {
      unnamed++;
      continue;
    }
    state.hiddenNamed++;
    const shown = sanitizeField(name, labelFieldCharsMax);
    ctx.warnOnce(
      `hidden:${name}`,
      name.startsWith(".")
        ? `Ignoring the dot-file ${shown} in this session's inbox: it is never read as mail.`
        : `Ignoring ${shown} in this session's inbox: its name is not valid UTF-8, so it is never read as mail.`,
    );
  }
  if (unnamed > 0) {
    ctx.warnOnce(
      "hidden:more",
      `Ignoring ${unnamed} more entries in this session's inbox that are never read as mail (dot-files, or names that are not valid UTF-8); only the first ${hiddenNamesMax} are named.`,
    );
  }
}

function claimNames(ctx: EngineContext, address: Address, batch: readonly string[]): void {
  // The journal names what was claimed and not yet read: a restart delivers what a crash left
  // claimed but never shown (or shown but lost from the host's queue before it was read).
  const claiming = [...journalNames(ctx.state), ...batch];
  const journaled = ctx.store.writeClaimJournal(address, claiming);
  if (journaled.isErr()) {
    // Without the journal a crash after the claim would lose the mail: leave it in new/ for a later scan.
    ctx.warnOnce("journal", `Could not write this session's claim journal: ${describe(journaled.error)}`);
    ctx.state.queue = [];
    return;
  }
  // It names every unread mail: whatever read mail was waiting to be dropped is dropped.
  ctx.state.journalDirty = false;
  const senders = new Map<string, Sender>();
  for (const name of batch) {
    if (ctx.state.closed) break;
    const claimed = ctx.store.claim(address, name);
    if (claimed.isErr()) {
      // Not moved: it is still in new/ (or gone), and a later scan tries again.
      ctx.warnOnce(
        `claim:${name}`,
        `Could not claim ${sanitizeField(name, labelFieldCharsMax)}: ${describe(claimed.error)}`,
      );
      continue;
    }
    if (claimed.value.kind !== "gone" && ctx.watch) ctx.state.claimedNames.add(name);
    take(ctx, claimed.value, senders, false);
  }
  rewriteJournalIfChanged(ctx, claiming);
}

/** An outcome of a claim or a read from cur/: mail whose read failed stays journaled, and is read
 * again from cur/ at the next poll; everything else goes on to delivery. */
function take(ctx: EngineContext, outcome: ClaimOutcome, senders: Map<string, Sender>, recovering: boolean): void {
  const { state } = ctx;
  if (outcome.kind === "unread") {
    // Remembered with how it was claimed: one a crash left may have been shown before it.
    state.stranded.set(outcome.name, { error: outcome.error, recovering });
    ctx.warnOnce(
      `unread:${outcome.name}`,
      `Could not read ${sanitizeField(outcome.path, labelFieldCharsMax)} (${describe(outcome.error)}); it stays claimed and is read again at the next poll.`,
    );
    return;
  }
  state.stranded.delete(outcome.name);
  accept(ctx, outcome, senders, recovering);
}

/** Mail claimed into cur/ whose read failed: read again (at each poll) until it is read or set aside. */
export function retryStranded(ctx: EngineContext): void {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined || state.closed || state.guest || state.stranded.size === 0 || state.scanning) return;
  exclusively(ctx, () => {
    const before = journalNames(state);
    const senders = new Map<string, Sender>();
    for (const [name, { recovering }] of [...state.stranded].slice(0, claimSliceMax)) {
      const read = ctx.store.readCur(address, name);
      if (read.isOk()) take(ctx, read.value, senders, recovering);
    }
    rewriteJournalIfChanged(ctx, before);
  });
}

/** After a restart: mail the journal says was claimed and not yet read, and that the host never
 * showed. Every journaled name is recovered, a slice per turn unless `whole`; names not reached
 * yet stay journaled, so a crash during recovery loses none. */
export function recoverClaimed(ctx: EngineContext, whole: boolean): void {
  const { state } = ctx;
  const address = state.identity?.address;
  if (address === undefined || state.closed || state.guest || ready(ctx) || state.scanning) return;
  if (state.recovering === undefined) {
    const journal = ctx.store.readClaimJournal(address);
    if (journal.isErr()) {
      // Claims wait: a journal written now would forget what the unread one names. The poll retries.
      ctx.warnOnce(
        "journal-read",
        `Could not read this session's claim journal: ${describe(journal.error)}. No mail is claimed until it can be read; retrying at each poll.`,
      );
      return;
    }
    // A link, FIFO or folder where the journal belongs was never a journal (a hostile process put
    // it there): nothing to recover, nothing to say. Text that does not parse may have been one.
    const damaged = journal.value.damaged;
    if (damaged !== undefined && !["symlink", "not-a-file", "foreign-owner"].includes(damaged)) {
      ctx.warnOnce(
        "journal-read",
        `This session's claim journal could not be read (${damaged}): mail claimed just before a crash may not be shown again. It is replaced at the next claim.`,
      );
    }
    state.recovering = journal.value.names;
  }
  if (state.recovering.length === 0) {
    scanInbox(ctx, whole);
    return;
  }
  const pending = state.recovering;
  exclusively(ctx, () => {
    const senders = new Map<string, Sender>();
    do {
      for (const name of pending.splice(0, claimSliceMax)) {
        const read = ctx.store.readCur(address, name);
        if (read.isOk()) take(ctx, read.value, senders, true);
        else state.stranded.set(name, { error: read.error, recovering: true });
      }
    } while (whole && pending.length > 0 && !state.closed);
    writeJournal(ctx);
  });
  if (pending.length > 0) {
    ctx.clock.defer(() => recoverClaimed(ctx, false));
    return;
  }
  // Recovered: what waits in new/ is claimed now.
  scanInbox(ctx, whole);
}

/** Rewrites the journal when it no longer names what `written` named: most batches end as they
 * began, every name claimed and unread, and then the journal is right already. */
function rewriteJournalIfChanged(ctx: EngineContext, written: readonly string[]): void {
  if (!sameNames(written, journalNames(ctx.state))) writeJournal(ctx);
}

function sameNames(names: readonly string[], others: readonly string[]): boolean {
  if (names.length !== others.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== others[i]) return false;
  return true;
}
