// When claiming must stop, and that it stops cleanly: a claim journal a full disk will not take,
// a claim window that is full, an inbox lost to a twin and taken back, a listener that shuts the
// mailbox down in the middle of a claim. (Found by a hunt against the specification; each test
// failed before its fix.)
import { err } from "neverthrow";
import { describe, expect, it, vi } from "vitest";
import { inboxListingNamesMax, ownerCheckMs, pendingMailMax } from "../../../../src/domain/mail/limits.js";
import { addressOf, createHarness, type Harness, mailRoot, pollMs } from "./harness.js";

// The real store, but a claim journal that fails as on a full disk while `faults.diskFull`, and a
// listing of new/ that gives up past 100 calls in one test (a claim that never returns would hang).
const faults = vi.hoisted(() => ({ diskFull: false, listings: 0 }));

vi.mock("../../../../src/adapters/fs/mail/fs-mail-store.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../../../src/adapters/fs/mail/fs-mail-store.js")>();
  return {
    ...real,
    createFsMailStore: (options: Parameters<typeof real.createFsMailStore>[0]) => {
      const store = real.createFsMailStore(options);
      return {
        ...store,
        writeClaimJournal: (address: never, names: readonly string[]) =>
          faults.diskFull
            ? err({
                kind: "io",
                code: "ENOSPC",
                op: "write",
                path: "claiming.json",
                message: "no space left on device",
              } as never)
            : store.writeClaimJournal(address, names),
        listNew: (address: never) => {
          if (++faults.listings > 100) throw new Error("new/ listed over 100 times: the claim never returns");
          return store.listNew(address);
        },
      };
    },
  };
});

function fullInbox(count: number) {
  faults.diskFull = false;
  faults.listings = 0;
  const h = createHarness();
  for (let i = 0; i < count; i++) h.plant({ from: addressOf.bob, to: addressOf.alice });
  return h;
}

describe("a claim journal that cannot be written", () => {
  // "a full disk ... fails a journal write while keeping the old journal": nothing more is claimed
  // until it can be written, and nothing loops meanwhile.
  it("ends message:scan, saying it did not scan, when more than one listing of mail waits", () => {
    const h = fullInbox(inboxListingNamesMax + 1);
    const alice = h.start("alice", { watch: false });
    faults.diskFull = true;
    faults.listings = 0;
    let scanned: boolean | undefined;
    expect(() => {
      scanned = alice.engine.scan();
    }).not.toThrow();
    expect(scanned).toBe(false);
  });

  it("does not list new/ again on every turn of the event loop: the claim waits for the poll", () => {
    const h = fullInbox(inboxListingNamesMax + 1);
    faults.diskFull = true;
    h.start("alice", { watch: false });
    expect(() => h.tick()).not.toThrow();
  });
});

describe("a full claim window", () => {
  it("makes message:scan say it did not scan while mail still waits in new/", () => {
    const h = fullInbox(pendingMailMax + 1);
    const alice = h.start("alice", { watch: false });
    const seen: string[] = [];
    alice.engine.onInbound((mail) => seen.push(mail.envelope.id));
    const scanned = alice.engine.scan();
    expect(seen).toHaveLength(pendingMailMax);
    expect(h.files("alice", "new")).toHaveLength(1);
    expect(scanned).toBe(false);
  });
});

describe("an inbox lost to a twin and taken back", () => {
  const ownerFile = `${mailRoot}/${addressOf.alice}/owner.json`;
  const journalFile = `${mailRoot}/${addressOf.alice}/claiming.json`;
  const ownerPid = (h: Harness) => JSON.parse(String(h.vol.readFileSync(ownerFile, "utf8"))).pid;
  const journal = (h: Harness) => JSON.parse(String(h.vol.readFileSync(journalFile, "utf8")).trim());

  // "when the owner is gone ... it takes the inbox over, with everything the owner claimed and never showed"
  it("delivers what the twin claimed and never showed, read from the twin's journal", () => {
    faults.diskFull = false;
    faults.listings = 0;
    const h = createHarness();
    const first = h.launch("alice");
    h.advance(pollMs / 2);
    // A guest, checking the owner half a poll after the first.
    const twin = h.launch("alice");
    const bob = h.launch("bob");
    h.advance(ownerCheckMs - pollMs / 2 + pollMs / 5);
    // owner.json removed by hand (or the folder restored from a backup) while both run.
    h.vol.unlinkSync(ownerFile);
    h.advance(pollMs);
    h.advance(ownerCheckMs);
    expect(ownerPid(h)).toBe(twin.pid);
    const sent = bob.engine.send(addressOf.alice, "claimed by the twin, never read")._unsafeUnwrap();
    h.hint("alice");
    expect(twin.host.injected.map((i) => i.mail.details.mailId)).toEqual([sent.envelope.id]);
    twin.crash();
    h.advance(2 * ownerCheckMs);
    expect(ownerPid(h)).toBe(first.pid);
    expect(journal(h)).toHaveLength(1);
    h.advance(10 * pollMs);
    expect(first.host.injected.map((i) => i.mail.details.mailId)).toContain(sent.envelope.id);
  });
});

describe("a listener that shuts the mailbox down inside a claim", () => {
  const openFds = (h: Harness) =>
    Object.values(
      (h.vol as unknown as { _core: { fds: Record<string, { link: { getPath(): string } }> } })._core.fds,
    ).map((f) => f.link.getPath());

  it("leaves no poll timer behind", () => {
    faults.diskFull = false;
    faults.listings = 0;
    const h = createHarness();
    const alice = h.launch("alice", { watch: false, listener: () => alice.engine.shutdown() });
    const bob = h.launch("bob");
    bob.engine.send(addressOf.alice, "bye")._unsafeUnwrap();
    h.clock.advance(pollMs);
    expect(alice.host.footers.at(-1)).toBeUndefined();
    expect(alice.liveTimers()).toBe(0);
  });

  it("leaves the claim journal closed", () => {
    faults.diskFull = false;
    faults.listings = 0;
    const h = createHarness();
    const bob = h.launch("bob");
    const alice = h.launch("alice", { listener: () => alice.engine.shutdown() });
    bob.engine.send(addressOf.alice, "one")._unsafeUnwrap();
    bob.engine.send(addressOf.alice, "two")._unsafeUnwrap();
    alice.engine.scan();
    expect(openFds(h).filter((p) => p.includes(`${mailRoot}/${addressOf.alice}`))).toEqual([]);
  });
});
