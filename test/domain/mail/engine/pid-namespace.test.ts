// Issue 8 §3: sessions in another pid namespace (a sandbox with --unshare-pid, a container sharing
// the mail root) record their namespace; a reader elsewhere never judges their pid, never deletes
// their record, and keeps their folder while their record is fresh. Records are refreshed for it.
import { describe, expect, it } from "vitest";
import { tableBootId } from "../../../../src/adapters/memory/process-table.js";
import { recordFreshMs, recordRefreshIntervalMs } from "../../../../src/domain/mail/limits.js";
import { encodeRunningRecord } from "../../../../src/domain/mail/running-record.js";
import { isoFromMs } from "../../../../src/domain/shared/text/iso-time.js";
import { describeSessions } from "../../../../src/pi/mail/roster-texts.js";
import { addressOf, createHarness, mailRoot, pollMs } from "./harness.js";

const sandbox = { pidNamespace: "pid:[4026532389]" };

describe("the periodic rewrite of a session's own record", () => {
  it("rewrites updated once every recordRefreshIntervalMs, not at every poll", () => {
    const h = createHarness();
    h.launch("alice");
    const seen = new Set<unknown>([h.record("alice")?.updated]);
    const steps = (3 * recordRefreshIntervalMs) / pollMs;
    for (let i = 0; i < steps; i++) {
      h.advance(pollMs);
      seen.add(h.record("alice")?.updated);
    }
    expect(seen.size).toBe(4);
    expect(h.record("alice")?.updated).toBe(isoFromMs(h.clock.now()));
  });

  it("writes it again at the next poll when it is gone (a reaper died holding it aside), not at the next refresh", () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    h.advance(pollMs);
    const path = `${mailRoot}/running/${addressOf.alice}.json`;
    // What a pruner that died mid-reap leaves: the record under a name listings skip.
    h.vol.renameSync(path, `${mailRoot}/running/.${addressOf.alice}.json.reaping`);
    expect(bob.engine.list().map((s) => s.address)).not.toContain(addressOf.alice);
    h.advance(pollMs);
    expect(h.record("alice")).toMatchObject({ address: addressOf.alice, state: "idle" });
    expect(bob.engine.list().map((s) => s.address)).toContain(addressOf.alice);
    // Present, it is rewritten only when due: one lstat per poll, no write.
    const updated = h.record("alice")?.updated;
    h.advance(pollMs);
    expect(h.record("alice")?.updated).toBe(updated);
  });

  it("rewrites at the next poll when the clock went back, so a jump never leaves it stale", () => {
    const h = createHarness();
    h.launch("alice");
    h.clock.jump(-recordFreshMs);
    h.advance(pollMs);
    expect(h.record("alice")?.updated).toBe(isoFromMs(h.clock.now()));
  });
});

describe("a session in another pid namespace", () => {
  it("is listed by the host, and the host by it, as running elsewhere; neither deletes the other's record", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob", { spawn: sandbox });
    // The pid each one recorded names no process on the other side.
    expect(h.table.probeFor(alice.pid).check(bob.pid, undefined)).toBe("gone");
    expect(h.record("bob")?.pidNamespace).toBe(sandbox.pidNamespace);

    const fromAlice = alice.engine.list().find((s) => s.address === addressOf.bob);
    expect(fromAlice).toMatchObject({ liveness: "unknown", elsewhere: true, stopped: false });
    expect(bob.engine.list().find((s) => s.address === addressOf.alice)).toMatchObject({ elsewhere: true });
    expect(h.record("alice")).toBeDefined();
    expect(h.record("bob")).toBeDefined();
    expect(describeSessions(alice.engine.list())).toContain("runs in another pid namespace");
  });

  it("can be asked and sent to while its record is fresh", async () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob", { spawn: sandbox });
    const pending = alice.engine.ask("bob", "are you there?", undefined);
    h.hint("bob");
    bob.completeRun("yes");
    h.hint("alice");
    const outcome = (await pending)._unsafeUnwrap().outcome;
    expect(outcome).toMatchObject({ kind: "answered", envelope: { body: "yes" } });
  });

  it("keeps its folder from /mailbox prune while it runs, over many refresh intervals", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("bob", { spawn: sandbox });
    h.advance(3 * recordFreshMs);
    expect(alice.engine.prune()._unsafeUnwrap()).toBe(0);
    expect(h.exists(`${mailRoot}/${addressOf.bob}`)).toBe(true);
    expect(alice.engine.list().map((s) => s.address)).toContain(addressOf.bob);
  });

  it("once crashed, is kept while fresh, then left out and pruned, its record never deleted by a reader", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("bob", { spawn: sandbox });
    h.crash("bob");
    h.advance(recordFreshMs - recordRefreshIntervalMs);
    expect(alice.engine.prune()._unsafeUnwrap()).toBe(0);
    expect(alice.engine.list().map((s) => s.address)).toContain(addressOf.bob);

    h.advance(2 * recordRefreshIntervalMs);
    expect(alice.engine.list().map((s) => s.address)).not.toContain(addressOf.bob);
    expect(alice.engine.prune()._unsafeUnwrap()).toBe(1);
    expect(h.exists(`${mailRoot}/${addressOf.bob}`)).toBe(false);
    expect(h.record("bob")).toBeDefined();
  });

  it("refuses an ask to it once its record is stale, as not running", async () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("bob", { spawn: sandbox });
    h.crash("bob");
    h.advance(recordFreshMs + recordRefreshIntervalMs);
    const result = await alice.engine.ask(addressOf.bob, "still there?", undefined);
    expect(result._unsafeUnwrapErr()).toEqual({ kind: "not-running", to: addressOf.bob });
  });
});

describe("a record from a previous boot", () => {
  it("is gone and deleted even when its pid and start token match a live process of this boot", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const carol = h.table.spawn();
    const path = `${mailRoot}/running/${addressOf.carol}.json`;
    const record = {
      address: addressOf.carol,
      cwd: "/work/carol",
      pid: carol.pid,
      started: carol.started!,
      bootId: "99999999-2222-4333-8444-555555555555",
      pidNamespace: carol.pidNamespace!,
      state: "idle" as const,
      waitingOn: "",
      updated: isoFromMs(h.clock.now()),
    };
    h.vol.writeFileSync(path, encodeRunningRecord(record));
    expect(alice.engine.list().map((s) => s.address)).not.toContain(addressOf.carol);
    expect(h.exists(path)).toBe(false);

    h.vol.writeFileSync(path, encodeRunningRecord({ ...record, bootId: tableBootId }));
    expect(alice.engine.list().map((s) => s.address)).toContain(addressOf.carol);
  });
});
