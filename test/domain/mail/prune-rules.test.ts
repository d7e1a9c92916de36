import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import {
  describePruned,
  mayPrune,
  type PruneCandidate,
  type PruneContext,
} from "../../../src/domain/mail/prune-rules.js";

const dayMs = 86_400_000;
const nowMs = 1_714_557_600_000;
const self = "aaaaaaaa-0000-4000-8000-000000000001" as Address;
const live = "bbbbbbbb-1111-4111-8111-111111111111" as Address;
const gone = "cccccccc-2222-4222-8222-222222222222" as Address;

const atStart: PruneContext = { self, running: new Set([self, live]), nowMs, olderThanDays: 30 };
const byCommand: PruneContext = { ...atStart, olderThanDays: undefined };
const folder = (fields: Partial<PruneCandidate> = {}): PruneCandidate => ({
  address: gone,
  lastActivityMs: nowMs - 31 * dayMs,
  waiting: 0,
  ...fields,
});

describe("mayPrune", () => {
  it("prunes a closed session's folder with nothing waiting and older than pruneAfterDays", () => {
    expect(mayPrune(folder(), atStart)).toBe(true);
  });

  // "it is not this session's, and no running session has that address"
  it("never prunes this session's folder, at start or by /mailbox prune", () => {
    expect(mayPrune(folder({ address: self }), atStart)).toBe(false);
    expect(mayPrune(folder({ address: self }), byCommand)).toBe(false);
    expect(mayPrune(folder({ address: self }), { ...byCommand, running: new Set() })).toBe(false);
  });

  it("never prunes a running session's folder, at start or by /mailbox prune", () => {
    expect(mayPrune(folder({ address: live }), atStart)).toBe(false);
    expect(mayPrune(folder({ address: live }), byCommand)).toBe(false);
  });

  // "nothing is waiting in its new/, so unread mail is never deleted"
  it("never prunes a folder with mail waiting in new/, however old", () => {
    expect(mayPrune(folder({ waiting: 1, lastActivityMs: 0 }), atStart)).toBe(false);
    expect(mayPrune(folder({ waiting: 3 }), byCommand)).toBe(false);
  });

  // "its last activity ... is older than pruneAfterDays days"
  it("keeps a folder whose last activity is exactly pruneAfterDays old and prunes one a millisecond older", () => {
    expect(mayPrune(folder({ lastActivityMs: nowMs - 30 * dayMs }), atStart)).toBe(false);
    expect(mayPrune(folder({ lastActivityMs: nowMs - 30 * dayMs - 1 }), atStart)).toBe(true);
  });

  it("keeps a recently active folder at start", () => {
    expect(mayPrune(folder({ lastActivityMs: nowMs - 60_000 }), atStart)).toBe(false);
  });

  it("uses the configured number of days", () => {
    const week: PruneContext = { ...atStart, olderThanDays: 7 };
    expect(mayPrune(folder({ lastActivityMs: nowMs - 8 * dayMs }), week)).toBe(true);
    expect(mayPrune(folder({ lastActivityMs: nowMs - 6 * dayMs }), week)).toBe(false);
  });

  // "It applies the same rules without the age limit ... including one that closed a minute ago."
  it("ignores age for /mailbox prune, so a session closed a minute ago goes too", () => {
    expect(mayPrune(folder({ lastActivityMs: nowMs - 60_000 }), byCommand)).toBe(true);
    expect(mayPrune(folder({ lastActivityMs: nowMs }), byCommand)).toBe(true);
  });
});

describe("describePruned", () => {
  // "It reports Removed <N> mailbox folders of closed sessions."
  it("reports the number of folders removed", () => {
    expect(describePruned(0)).toBe("Removed 0 mailbox folders of closed sessions.");
    expect(describePruned(4)).toBe("Removed 4 mailbox folders of closed sessions.");
    expect(describePruned(1)).toBe("Removed 1 mailbox folder of closed sessions.");
  });
});
