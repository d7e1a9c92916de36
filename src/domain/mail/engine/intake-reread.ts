// The intake's reads again from cur/: what a crash left journaled (recovered a slice per turn, the
// rest still journaled) and what failed to read (tried at each poll). Each outcome is sorted as a
// claim's is; once recovered, what waits in new/ is claimed (the `scan` the intake gives).
import type { Sender } from "../framing.js";
import { claimSliceMax } from "../limits.js";
import { exclusively, type IntakeContext, type IntakeState, reader, take } from "./intake-context.js";

export function retryStranded(ctx: IntakeContext, s: IntakeState): void {
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

/** `scan`: the intake's claim of what waits in new/, once nothing journaled is left. */
export function recoverClaimed(
  ctx: IntakeContext,
  s: IntakeState,
  whole: boolean,
  scan: (whole: boolean) => void,
): void {
  const address = reader(ctx, s);
  if (address === undefined || ctx.backlog.ready()) return;
  if (ctx.backlog.recovering() === undefined && !readJournal(ctx)) return;
  const pending = ctx.backlog.recovering() ?? [];
  if (pending.length === 0) {
    scan(whole);
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
    ctx.clock.defer(() => recoverClaimed(ctx, s, false, scan));
    return;
  }
  // Recovered: what waits in new/ is claimed now.
  scan(whole);
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
