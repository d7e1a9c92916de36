// Mail already claimed into cur/ that still has to be read: what a crash left journaled, and mail
// whose read failed after its claim (EMFILE, EIO). Owns both lists; the claim journal names them
// until they are read or set aside.
import type { ClaimOutcome } from "../../../ports/mail/mail-store.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Sender } from "../framing.js";
import { claimSliceMax } from "../limits.js";
import type { EngineContext } from "./context.js";

export interface Recovery {
  /** After a restart: mail the journal says was claimed and not yet read, and that the host never
   * showed. Every journaled name is recovered, a slice per turn unless `whole`; names not reached
   * yet stay journaled, so a crash during recovery loses none. Then what waits in new/ is claimed. */
  recover(whole: boolean): void;
  /** Mail whose read failed, read again (at each poll) until it is read or set aside. */
  retryStranded(): void;
  /** An outcome of a claim or a read from cur/: a failed read stays journaled; the rest is delivered. */
  take(outcome: ClaimOutcome, senders: Map<string, Sender>, recovering: boolean): void;
  /** Another process owns the inbox now: its journal is read again when this one takes it back. */
  forget(): void;
  /** Recovery is done: claims may begin. */
  ready(): boolean;
  strandedCount(): number;
  /** What the journal must keep for recovery: failed reads, then names not recovered yet. */
  journaled(): string[];
  /** How many names journaled() gives. */
  journaledCount(): number;
}

interface RecoveryState {
  /** Names claimed into cur/ whose read failed: journaled, read again at each poll. */
  stranded: Map<string, { error: StoreError; recovering: boolean }>;
  /** Journaled names a crash left that recovery has not reached yet; undefined until the journal
   * was read. No claim happens before recovery is done. */
  recovering: string[] | undefined;
}

export function createRecovery(ctx: EngineContext): Recovery {
  const s: RecoveryState = { stranded: new Map(), recovering: undefined };
  return {
    recover: (whole) => recoverClaimed(ctx, s, whole),
    retryStranded: () => retryStranded(ctx, s),
    take: (outcome, senders, recovering) => take(ctx, s, outcome, senders, recovering),
    ready: () => ready(s),
    forget() {
      s.recovering = undefined;
    },
    strandedCount: () => s.stranded.size,
    journaled: () => [...s.stranded.keys(), ...(s.recovering ?? [])],
    journaledCount: () => s.stranded.size + (s.recovering?.length ?? 0),
  };
}

function ready(s: RecoveryState): boolean {
  return s.recovering !== undefined && s.recovering.length === 0;
}

/** The owner of this address's inbox, when it may read from cur/ now. */
function reader(ctx: EngineContext) {
  const address = ctx.session.address();
  if (address === undefined || ctx.session.closed() || ctx.ownership.guest() || ctx.intake.scanning()) return undefined;
  return address;
}

function take(
  ctx: EngineContext,
  s: RecoveryState,
  outcome: ClaimOutcome,
  senders: Map<string, Sender>,
  recovering: boolean,
): void {
  if (outcome.kind === "unread") {
    // Remembered with how it was claimed: one a crash left may have been shown before it.
    s.stranded.set(outcome.name, { error: outcome.error, recovering });
    ctx.notices.once(`unread:${outcome.name}`, { kind: "read-failed", path: outcome.path, error: outcome.error });
    return;
  }
  s.stranded.delete(outcome.name);
  ctx.delivery.accept(outcome, senders, recovering);
}

function retryStranded(ctx: EngineContext, s: RecoveryState): void {
  const address = reader(ctx);
  if (address === undefined || s.stranded.size === 0) return;
  ctx.intake.exclusively(() => {
    const before = ctx.journal.names();
    const senders = new Map<string, Sender>();
    for (const [name, { recovering }] of [...s.stranded].slice(0, claimSliceMax)) {
      const read = ctx.store.readCur(address, name);
      if (read.isOk()) take(ctx, s, read.value, senders, recovering);
    }
    ctx.journal.rewriteIfChanged(before);
  });
}

function recoverClaimed(ctx: EngineContext, s: RecoveryState, whole: boolean): void {
  const address = reader(ctx);
  if (address === undefined || ready(s)) return;
  if (s.recovering === undefined && !readJournal(ctx, s)) return;
  const pending = s.recovering ?? [];
  if (pending.length === 0) {
    ctx.intake.scan(whole);
    return;
  }
  ctx.intake.exclusively(() => {
    const senders = new Map<string, Sender>();
    do {
      for (const name of pending.splice(0, claimSliceMax)) {
        const read = ctx.store.readCur(address, name);
        if (read.isOk()) take(ctx, s, read.value, senders, true);
        else s.stranded.set(name, { error: read.error, recovering: true });
      }
    } while (whole && pending.length > 0 && !ctx.session.closed());
    ctx.journal.write();
  });
  if (pending.length > 0) {
    ctx.clock.defer(() => recoverClaimed(ctx, s, false));
    return;
  }
  // Recovered: what waits in new/ is claimed now.
  ctx.intake.scan(whole);
}

/** Reads the journal a crash may have left; false when it cannot be read yet. */
function readJournal(ctx: EngineContext, s: RecoveryState): boolean {
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
  s.recovering = journal.value.names;
  return true;
}
