// One session id in two processes (`pi -c` in two panes): only one owns the inbox. The other
// sends, claims nothing, writes no record, and takes the inbox over once the owner is gone, with
// everything the owner claimed and never showed.
import { describe, expect, it } from "vitest";
import { ownerCheckMs } from "../../../../src/domain/mail/limits.js";
import { addressOf, createHarness, mailRoot, pollMs } from "./harness.js";

const ownerFile = `${mailRoot}/${addressOf.alice}/owner.json`;

describe("the same session in two processes", () => {
  it("leaves the inbox to the first: the twin says so plainly, claims nothing and writes no record", () => {
    const h = createHarness();
    const first = h.launch("alice");
    const twin = h.launch("alice");
    expect(twin.warnings()).toEqual([
      expect.stringMatching(/mailbox is held by another process \(pid \d+\): the same session is open twice/),
    ]);
    expect(JSON.parse(String(h.vol.readFileSync(ownerFile, "utf8")))).toMatchObject({ pid: first.pid });
    expect(h.record("alice")).toMatchObject({ pid: first.pid });
    const bob = h.launch("bob");
    const sent = bob.engine.send(addressOf.alice, "hello")._unsafeUnwrap();
    h.advance(pollMs);
    expect(first.host.injected.map((i) => i.mail.details.mailId)).toEqual([sent.envelope.id]);
    expect(twin.host.injected).toEqual([]);
    // Sends from the twin still work.
    expect(twin.engine.send(addressOf.bob, "from the twin").isOk()).toBe(true);
  });

  it("refuses an ask from the twin at once, writing nothing: its answer would reach the other process", async () => {
    const h = createHarness();
    h.launch("alice");
    const twin = h.launch("alice");
    h.launch("bob");
    const asked = await twin.engine.ask(addressOf.bob, "are you there?", undefined);
    expect(asked._unsafeUnwrapErr()).toEqual({ kind: "not-owner" });
    expect(h.files("bob", "new")).toEqual([]);
  });

  it("hands the inbox to the twin when the owner crashes, with every mail it claimed and never showed", () => {
    const h = createHarness();
    const first = h.launch("alice");
    const twin = h.launch("alice");
    const bob = h.launch("bob");
    const ids = [1, 2, 3].map((n) => bob.engine.send(addressOf.alice, `mail ${n}`)._unsafeUnwrap().envelope.id);
    h.advance(pollMs);
    expect(first.host.injected.map((i) => i.mail.details.mailId).sort()).toEqual([...ids].sort());
    first.crash();
    h.advance(ownerCheckMs);
    expect(twin.host.notices.map((n) => n.text)).toContain(
      "This process now holds this session's mailbox: mail to it is read here.",
    );
    expect(twin.host.injected.map((i) => i.mail.details.mailId).sort()).toEqual([...ids].sort());
    expect(h.record("alice")).toMatchObject({ pid: twin.pid });
  });

  it("keeps the owner's record and folder when the twin closes, so no prune takes the live session's mail", () => {
    const h = createHarness();
    const first = h.launch("alice");
    const twin = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send(addressOf.alice, "waiting")._unsafeUnwrap();
    h.advance(pollMs);
    twin.engine.shutdown();
    h.table.exit(twin.pid);
    expect(h.record("alice")).toMatchObject({ pid: first.pid });
    expect(bob.engine.prune()._unsafeUnwrap()).toBe(0);
    expect(h.files("alice", "cur")).toHaveLength(1);
    // And when the owner shuts down, the next start on that id owns the inbox at once.
    first.engine.shutdown();
    h.table.exit(first.pid);
    expect(h.exists(ownerFile)).toBe(false);
    const again = h.launch("alice");
    expect(again.warnings()).toEqual([]);
  });
  // Found by the simulator: stopped past the owner check's period, the owner lost its inbox (a
  // reader in another pid namespace judged it closed by its unrefreshed record and pruned its
  // folder; the twin took the inbox). Resumed, a wake came before its poll, and both claimed.
  it("checks it still owns the inbox before a claim once the check is due, so a resumed owner that lost it claims nothing", () => {
    const h = createHarness();
    const first = h.launch("alice");
    const twin = h.launch("alice");
    const bob = h.launch("bob");
    const { started: _, ...held } = JSON.parse(String(h.vol.readFileSync(ownerFile, "utf8"))) as Record<
      string,
      unknown
    >;
    h.vol.writeFileSync(ownerFile, `${JSON.stringify({ ...held, pid: twin.pid, token: "the-twin" })}\n`);
    // Time passes with no timer run (the process was stopped): the owner check is due.
    h.clock.jump(2 * ownerCheckMs);
    bob.engine.send(addressOf.alice, "for whoever owns it")._unsafeUnwrap();
    h.hint("alice");
    expect(first.host.injected).toEqual([]);
    expect(h.files("alice", "new")).toHaveLength(1);
  });
});
