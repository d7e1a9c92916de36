// Claiming waiting mail: a scan of new/, or the one entry a watcher hint names. Everything
// claimed is emitted (and shown) before the call returns.
import { claimBatchMax, labelFieldCharsMax } from "../../limits.js";
import { sanitizeField } from "../../text/sanitize.js";
import type { Address } from "../address.js";
import { mayBeMailName } from "../envelope.js";
import type { Sender } from "../labels.js";
import type { EngineContext } from "./context.js";
import { accept, describe, writeJournal } from "./inbox.js";

/** Claims everything waiting in new/ now; every claimed envelope is emitted before this returns. */
export function scanInbox(ctx: EngineContext): void {
  const address = claimable(ctx);
  if (address === undefined) return;
  const { state } = ctx;
  exclusively(ctx, () => {
    do {
      state.rescan = false;
      if (claimListed(ctx, address)) state.rescan = true;
    } while (state.rescan && !state.closed);
  });
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
  if (address === undefined) return;
  exclusively(ctx, () => claimNames(ctx, address, [name]));
  // A listener asked for a scan meanwhile.
  if (state.rescan) scanInbox(ctx);
}

function claimable(ctx: EngineContext): Address | undefined {
  const { state } = ctx;
  if (state.identity === undefined || state.closed || !state.ready) return undefined;
  if (state.scanning) {
    state.rescan = true;
    return undefined;
  }
  return state.identity.address;
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

/** One bounded batch from a listing of new/; true when more is waiting. */
function claimListed(ctx: EngineContext, address: Address): boolean {
  const listing = ctx.store.listNew(address);
  if (listing.isErr()) {
    ctx.warnOnce(`list:${listing.error.kind}`, `Could not read this session's inbox: ${describe(listing.error)}`);
    return false;
  }
  for (const hidden of listing.value.hidden) {
    const shown = sanitizeField(hidden, labelFieldCharsMax);
    ctx.warnOnce(
      `hidden:${hidden}`,
      hidden.startsWith(".")
        ? `Ignoring the dot-file ${shown} in this session's inbox: it is never read as mail.`
        : `Ignoring ${shown} in this session's inbox: its name is not valid UTF-8, so it is never read as mail.`,
    );
  }
  const batch = listing.value.names.slice(0, claimBatchMax);
  if (batch.length === 0) return false;
  claimNames(ctx, address, batch);
  return listing.value.truncated || listing.value.names.length > batch.length;
}

function claimNames(ctx: EngineContext, address: Address, batch: readonly string[]): void {
  // The journal names what was claimed and not yet read: a restart delivers what a crash left
  // claimed but never shown (or shown but lost from the host's queue before it was read).
  const claiming = [...ctx.state.unread.values(), ...batch];
  const journaled = ctx.store.writeClaimJournal(address, claiming);
  if (journaled.isErr()) {
    // Without the journal a crash after the claim would lose the mail: leave it in new/ for a later scan.
    ctx.warnOnce("journal", `Could not write this session's claim journal: ${describe(journaled.error)}`);
    return;
  }
  // It names every unread mail: whatever read mail was waiting to be dropped is dropped.
  ctx.state.journalDirty = false;
  const senders = new Map<string, Sender>();
  for (const name of batch) {
    if (ctx.state.closed) break;
    const claimed = ctx.store.claim(address, name);
    if (claimed.isErr()) {
      ctx.warnOnce(`claim:${name}`, `Could not claim ${name}: ${describe(claimed.error)}`);
      continue;
    }
    if (claimed.value.kind !== "gone" && ctx.watch) ctx.state.claimedNames.add(name);
    accept(ctx, claimed.value, senders, false);
  }
  // Most batches end as they began, every name claimed and unread: then the journal is right already.
  if (!sameNames(claiming, ctx.state.unread.values())) writeJournal(ctx);
}

function sameNames(names: readonly string[], others: Iterable<string>): boolean {
  let i = 0;
  for (const other of others) if (names[i++] !== other) return false;
  return i === names.length;
}
