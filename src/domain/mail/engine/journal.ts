// The claim journal: the names of mail claimed into cur/ and not yet read, so a restart delivers
// what a crash left claimed but never shown. Owns the mail injected and not yet read; the backlog
// adds what it still holds.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Backlog } from "./backlog.js";
import type { MailContext } from "./context.js";

export interface Journal {
  /** What the journal must name now: mail injected and not yet read, then recovery's names. */
  names(): string[];
  /** Rewrites the journal from what it must name now. */
  write(): void;
  /** Writes the journal naming `batch` too, before it is claimed; the names written, or why not. */
  writeClaiming(batch: readonly string[]): Result<readonly string[], StoreError>;
  /** What the journal must name to claim `batch` too: for a store call that writes it itself. */
  claiming(batch: readonly string[]): readonly string[];
  /** The store wrote what claiming() gave. */
  wroteClaiming(): void;
  /** Rewrites the journal when it no longer names what `written` named: most batches end as they
   * began, every name claimed and unread, and then the journal is right already. */
  rewriteIfChanged(written: readonly string[]): void;
  /** Mail injected (or handed to a waiting ask) and not read yet, by id: its file name in cur/. */
  track(mailId: string, name: string): void;
  /** Injecting it failed: nothing to keep. */
  untrack(mailId: string): void;
  /** Mail left the journal: read (dropped lazily), or answered (dropped at once). */
  settle(mailId: string, how: "read" | "answered"): void;
  unreadIds(): string[];
  unreadCount(): number;
  /** Writes the journal if it still names mail read since it was written. */
  flush(): void;
}

interface JournalState {
  unread: Map<string, string>;
  /** The journal still lists mail read since it was written. */
  dirty: boolean;
  /** A write is scheduled for a later turn (read mail leaving it). */
  writeScheduled: boolean;
}

export function createJournal(ctx: MailContext, backlog: Backlog): Journal {
  const s: JournalState = { unread: new Map(), dirty: false, writeScheduled: false };
  const names = () => [...s.unread.values(), ...backlog.journaled()];
  // Most claims come with nothing else unread: the batch alone, no copies. Written, it names every
  // unread mail: whatever read mail was waiting to be dropped is dropped.
  const claiming = (batch: readonly string[]) =>
    s.unread.size === 0 && backlog.journaledCount() === 0 ? batch : [...names(), ...batch];
  const write = () => {
    const address = ctx.session.address();
    s.dirty = false;
    if (address !== undefined) ctx.store.writeClaimJournal(address, names());
  };
  return {
    names,
    write,
    writeClaiming(batch) {
      const names = claiming(batch);
      const written = ctx.store.writeClaimJournal(ctx.session.address()!, names);
      if (written.isErr()) return err(written.error);
      s.dirty = false;
      return ok(names);
    },
    claiming,
    wroteClaiming() {
      s.dirty = false;
    },
    rewriteIfChanged(written) {
      if (!ctx.session.closed() && !sameNames(written, names())) write();
    },
    track: (mailId, name) => void s.unread.set(mailId, name),
    untrack: (mailId) => void s.unread.delete(mailId),
    settle: (mailId, how) => settle(ctx, s, write, mailId, how),
    unreadIds: () => [...s.unread.keys()],
    unreadCount: () => s.unread.size,
    flush() {
      if (s.dirty) write();
    },
  };
}

/** Read mail is dropped from the journal lazily (at the next scan or poll): until then a restart
 * finds it in the host's transcript and skips it. Mail answered unread must go at once, or a
 * restart would show it, and answer it, a second time. */
function settle(ctx: MailContext, s: JournalState, write: () => void, mailId: string, how: "read" | "answered"): void {
  if (!s.unread.delete(mailId)) return;
  if (how === "answered") {
    write();
    return;
  }
  // Read mail leaves the journal on a later turn, once for all the mail read in this one: a twin
  // that takes the inbox over after a crash cannot see this process's transcript, so the journal
  // must not name read mail for long (a flood read in one turn is still one write).
  s.dirty = true;
  if (s.writeScheduled) return;
  s.writeScheduled = true;
  ctx.clock.defer(() => {
    s.writeScheduled = false;
    if (s.dirty && !ctx.session.closed()) write();
  });
}

function sameNames(names: readonly string[], others: readonly string[]): boolean {
  if (names.length !== others.length) return false;
  for (let i = 0; i < names.length; i++) if (names[i] !== others[i]) return false;
  return true;
}
