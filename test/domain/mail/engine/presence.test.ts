import { describe, expect, it } from "vitest";
import { footerText } from "../../../../src/domain/mail/engine/index.js";
import { isoFromMs } from "../../../../src/domain/shared/text/iso-time.js";
import { addressOf, createHarness, mailRoot } from "./harness.js";

describe("the running record", () => {
  // "At session start each session writes an owner-only record to <mail root>/running/<address>.json. It holds
  // the session's address, Pi session name, working directory, process id, idle or busy state, waitingOn ... and updated"
  it("is written at sessionStarted with address, name, cwd, pid, started, bootId, pidNamespace, idle, empty waitingOn and updated", () => {
    const h = createHarness();
    const alice = h.start("alice");
    const { started, bootId, pidNamespace } = h.table.probeFor(alice.pid).self();
    expect(started).toEqual(expect.any(String));
    expect(h.record("alice")).toEqual({
      address: addressOf.alice,
      name: "alice",
      cwd: "/work/alice",
      pid: alice.pid,
      started,
      bootId,
      pidNamespace,
      state: "idle",
      waitingOn: "",
      updated: isoFromMs(h.clock.now()),
    });
    const mode = Number(h.vol.statSync(`${mailRoot}/running/${addressOf.alice}.json`).mode) & 0o777;
    expect(mode).toBe(0o600);
  });

  // "The record is rewritten when the session is renamed, when a run starts (busy) and when it settles (idle)"
  it("turns busy at runStarted and idle at runSettled, with updated rewritten each time", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.advance(5000);
    alice.engine.runStarted();
    expect(h.record("alice")).toMatchObject({ state: "busy", updated: isoFromMs(h.clock.now()) });
    h.advance(5000);
    alice.engine.runSettled({ kind: "done", text: "" });
    expect(h.record("alice")).toMatchObject({ state: "idle", updated: isoFromMs(h.clock.now()) });
  });

  it("takes the new name on renamed, and drops it when the name is cleared", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    alice.engine.renamed("reviewer");
    expect(h.record("alice")?.name).toBe("reviewer");
    alice.engine.renamed(undefined);
    expect(h.record("alice")).not.toHaveProperty("name");
  });

  // "It is removed at session_shutdown."
  it("is removed at shutdown, which also closes the watcher and cancels every timer", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    expect(h.watcher.watchedDirs()).toEqual([h.newDir("alice")]);
    expect(h.clock.pendingTimers()).toBeGreaterThan(0);

    alice.engine.shutdown();
    expect(h.record("alice")).toBeUndefined();
    expect(h.watcher.watchedDirs()).toEqual([]);
    expect(h.clock.pendingTimers()).toBe(0);
    expect(alice.footer()).toBeUndefined();
    h.advance(60_000);
    expect(h.clock.pendingTimers()).toBe(0);
  });

  it("cancels a waiting ask's timer too when the asker shuts down", async () => {
    const h = createHarness();
    h.launch("alice");
    const bob = h.launch("bob");
    const pending = bob.engine.ask("alice", "question", undefined);
    expect(bob.liveTimers()).toBe(2);
    h.shutdown("bob");
    expect((await pending)._unsafeUnwrap().outcome).toEqual({ kind: "aborted" });
    expect(bob.liveTimers()).toBe(0);
    expect(h.record("bob")).toBeUndefined();
  });
});

describe("list()", () => {
  // session_mail_list "Lists every running session ... and marks the calling session."
  it("shows every live session with its name, cwd, state and waitingOn, and marks self", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.runStarted();
    const listed = alice.engine.list().sort((a, b) => a.address.localeCompare(b.address));
    expect(listed).toEqual([
      {
        address: addressOf.alice,
        name: "alice",
        cwd: "/work/alice",
        state: "idle",
        waitingOn: "",
        hops: 0,
        mailMode: "accept",
        liveness: "alive",
        stopped: false,
        elsewhere: false,
        self: true,
      },
      {
        address: addressOf.bob,
        name: "bob",
        cwd: "/work/bob",
        state: "busy",
        waitingOn: "",
        hops: 0,
        mailMode: "accept",
        liveness: "alive",
        stopped: false,
        elsewhere: false,
        self: false,
      },
    ]);
  });

  // "A record whose process no longer exists counts as not running, and whoever reads it deletes it"
  it("leaves out and deletes the record of a crashed process", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("carol");
    h.crash("carol");
    expect(h.record("carol")).toBeDefined();

    expect(alice.engine.list().map((s) => s.address)).toEqual([addressOf.alice]);
    expect(h.record("carol")).toBeUndefined();
  });

  // "a record whose process id the operating system has reused for another process is treated as gone too"
  it("leaves out and deletes the record whose pid was reused by another process", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    h.crash("bob");
    h.table.reuse(bob.pid);
    expect(h.table.check(bob.pid, undefined)).toBe("alive");

    expect(alice.engine.list().map((s) => s.address)).toEqual([addressOf.alice]);
    expect(h.record("bob")).toBeUndefined();
  });

  // Liveness "unknown: cannot tell (never treated as dead)"
  it("keeps a record whose liveness is unknown", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const carol = h.launch("carol");
    h.table.setUnknown(carol.pid, true);

    expect(alice.engine.list().find((s) => s.address === addressOf.carol)?.liveness).toBe("unknown");
    expect(h.record("carol")).toBeDefined();
  });
});

describe("the footer", () => {
  // "The footer shows ✉ N pending · N read · N awaiting, non-zero counts only. awaiting counts requests and asks
  // with no answer yet, never messages."
  it("follows a request from awaiting, to pending, to read, and clears when all counts are zero", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.request("alice", "job", "command");
    expect(bob.footer()).toBe("✉ 1 awaiting");
    h.hint("alice");
    expect(alice.footer()).toBe("✉ 1 pending");
    alice.engine.runStarted();
    alice.enterAll();
    expect(alice.footer()).toBe("✉ 1 read");
    alice.engine.runSettled({ kind: "done", text: "done" });
    expect(alice.footer()).toBeUndefined();
    h.hint("bob");
    expect(bob.footer()).toBeUndefined();
  });

  it("shows only the non-zero parts, in the order pending, read, awaiting", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    alice.engine.request("bob", "alice's job", "command");
    bob.engine.request("alice", "first", "command");
    h.hint("alice");
    expect(alice.footer()).toBe("✉ 1 pending · 1 awaiting");
    bob.engine.request("alice", "second", "command");
    alice.enterAll();
    h.hint("alice");
    expect(alice.footer()).toBe("✉ 1 pending · 1 read · 1 awaiting");
  });

  it("never counts a message, sent or read", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "note");
    expect(bob.footer()).toBeUndefined();
    h.hint("alice");
    alice.enterAll();
    expect(alice.footer()).toBeUndefined();
  });

  it("formats the counts with footerText", () => {
    expect(footerText({ pending: 2, read: 0, awaiting: 3 })).toBe("✉ 2 pending · 3 awaiting");
    expect(footerText({ pending: 0, read: 0, awaiting: 0 })).toBeUndefined();
  });
});

describe("the open-folder warning", () => {
  // "A session warns at start if its own address folder is open to other users; it does not change the folder,
  // so run the chmod 700 it names."
  it("warns at start, naming the chmod 700 of the folder, and leaves the folder's mode alone", () => {
    const h = createHarness();
    const folder = `${mailRoot}/${addressOf.alice}`;
    h.vol.mkdirSync(folder, { recursive: true, mode: 0o700 });
    h.vol.chmodSync(folder, 0o755);
    const alice = h.launch("alice");

    expect(alice.warnings()).toEqual([expect.stringContaining(`chmod 700 ${folder}`)]);
    expect(Number(h.vol.statSync(folder).mode) & 0o777).toBe(0o755);
  });

  it("does not warn about a folder that is owner-only", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    expect(alice.warnings()).toEqual([]);
  });
});
