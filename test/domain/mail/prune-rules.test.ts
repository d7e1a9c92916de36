import { describe, expect, it } from "vitest";
import type { Address } from "../../../src/domain/mail/address.js";
import {
  describePruned,
  type PruneCandidate,
  type PruneContext,
  pruneVerdict,
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

describe("pruneVerdict", () => {
  it("prunes a closed session's folder with nothing waiting and older than pruneAfterDays", () => {
    expect(pruneVerdict(folder(), atStart)).toBe("removed");
  });

  // "it is not this session's, and no running session has that address"
  it("never prunes this session's folder, at start or by /mailbox prune", () => {
    expect(pruneVerdict(folder({ address: self }), atStart)).toBe("own");
    expect(pruneVerdict(folder({ address: self }), byCommand)).toBe("own");
    expect(pruneVerdict(folder({ address: self }), { ...byCommand, running: new Set() })).toBe("own");
  });

  it("never prunes a running session's folder, at start or by /mailbox prune", () => {
    expect(pruneVerdict(folder({ address: live }), atStart)).toBe("running");
    expect(pruneVerdict(folder({ address: live }), byCommand)).toBe("running");
  });

  // "nothing is waiting in its new/, so unread mail is never deleted"
  it("never prunes a folder with mail waiting in new/, however old", () => {
    expect(pruneVerdict(folder({ waiting: 1, lastActivityMs: 0 }), atStart)).toBe("unread");
    expect(pruneVerdict(folder({ waiting: 3 }), byCommand)).toBe("unread");
  });

  // "its last activity ... is older than pruneAfterDays days"
  it("keeps a folder whose last activity is exactly pruneAfterDays old and prunes one a millisecond older", () => {
    expect(pruneVerdict(folder({ lastActivityMs: nowMs - 30 * dayMs }), atStart)).toBe("recent");
    expect(pruneVerdict(folder({ lastActivityMs: nowMs - 30 * dayMs - 1 }), atStart)).toBe("removed");
  });

  it("keeps a recently active folder at start", () => {
    expect(pruneVerdict(folder({ lastActivityMs: nowMs - 60_000 }), atStart)).toBe("recent");
  });

  it("uses the configured number of days", () => {
    const week: PruneContext = { ...atStart, olderThanDays: 7 };
    expect(pruneVerdict(folder({ lastActivityMs: nowMs - 8 * dayMs }), week)).toBe("removed");
    expect(pruneVerdict(folder({ lastActivityMs: nowMs - 6 * dayMs }), week)).toBe("recent");
  });

  // "It applies the same rules without the age limit ... including one that closed a minute ago."
  it("ignores age for /mailbox prune, so a session closed a minute ago goes too", () => {
    expect(pruneVerdict(folder({ lastActivityMs: nowMs - 60_000 }), byCommand)).toBe("removed");
    expect(pruneVerdict(folder({ lastActivityMs: nowMs }), byCommand)).toBe("removed");
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

describe("pruneVerdict for a caller with no folder of its own (the shell)", () => {
  it("judges every folder by the other rules", () => {
    const shell: PruneContext = { ...byCommand, self: undefined };
    expect(pruneVerdict(folder({ address: self }), { ...shell, running: new Set() })).toBe("removed");
    expect(pruneVerdict(folder({ address: live }), shell)).toBe("running");
  });
});
