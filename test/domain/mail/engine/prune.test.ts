import { describe, expect, it } from "vitest";
import { addressOf, createHarness, type Harness, mailRoot, type Name, pollMs, startMs } from "./harness.js";

const dayMs = 86_400_000;

/** Sets the mtime of an address folder and its four boxes to `ageDays` before the virtual now. */
function age(h: Harness, name: Name, ageDays: number): void {
  const seconds = (startMs - ageDays * dayMs) / 1000;
  const folder = `${mailRoot}/${addressOf[name]}`;
  for (const path of [folder, ...["tmp", "new", "cur", "sent"].map((box) => `${folder}/${box}`)]) {
    h.vol.utimesSync(path, seconds, seconds);
  }
}

/** carol ran, sent and read mail, and shut down: her folder has cur/ and sent/ files and nothing waiting. */
function closedCarol(h: Harness): void {
  const bob = h.session("bob");
  h.launch("carol").engine.send("bob", "from carol");
  bob.engine.send("carol", "to carol");
  h.hint("carol");
  h.session("carol").enterAll();
  h.shutdown("carol");
  expect(h.files("carol", "cur")).toHaveLength(1);
  expect(h.files("carol", "sent")).toHaveLength(1);
}

describe("prune() (/mailbox prune)", () => {
  // "It applies the same rules without the age limit, so it removes the folder (with its cur/ and sent/) of every
  // closed session with no unread mail, including one that closed a minute ago."
  it("removes a closed session's folder with nothing waiting and returns the count", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("bob");
    closedCarol(h);

    expect(alice.engine.prune()._unsafeUnwrap()).toBe(1);
    expect(h.exists(`${mailRoot}/${addressOf.carol}`)).toBe(false);
    expect(alice.engine.prune()._unsafeUnwrap()).toBe(0);
  });

  // "nothing is waiting in its new/, so unread mail is never deleted"; "it is not this session's, and no running
  // session has that address"
  it("keeps a folder with mail in new/, one with a claim journal, running sessions' folders and its own", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send(addressOf.dave, "waits in new/");
    h.launch("erin");
    h.shutdown("erin");
    h.vol.writeFileSync(`${mailRoot}/${addressOf.erin}/claiming.json`, JSON.stringify(["000000000000001-x.json"]));

    expect(alice.engine.prune()._unsafeUnwrap()).toBe(0);
    for (const name of ["alice", "bob", "dave", "erin"] as const) {
      expect(h.exists(`${mailRoot}/${addressOf[name]}`)).toBe(true);
    }
    expect(h.exists(`${mailRoot}/running`)).toBe(true);
  });

  it("removes the folder of a crashed session, whose record no longer counts as running", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("bob");
    h.crash("bob");

    expect(alice.engine.prune()._unsafeUnwrap()).toBe(1);
    expect(h.exists(`${mailRoot}/${addressOf.bob}`)).toBe(false);
    expect(h.record("bob")).toBeUndefined();
  });
});

describe("the prune at start", () => {
  // "its last activity, the newest change to the folder or its four boxes, is older than pruneAfterDays days"
  // and "The work runs after session_start returns."
  it("removes, at the first poll after start, a closed folder older than 30 days and keeps a younger one", () => {
    const h = createHarness();
    h.launch("bob");
    closedCarol(h);
    h.launch("dave");
    h.shutdown("dave");
    h.advance(pollMs); // bob's own start prune, while nothing is old yet
    age(h, "carol", 31);
    age(h, "dave", 29);
    const alice = h.start("alice");
    h.tick();
    // Off the start path: the tick after start claims mail; the first poll prunes.
    expect(h.exists(`${mailRoot}/${addressOf.carol}`)).toBe(true);

    h.advance(pollMs);
    expect(h.exists(`${mailRoot}/${addressOf.carol}`)).toBe(false);
    expect(h.exists(`${mailRoot}/${addressOf.dave}`)).toBe(true);
    expect(alice.host.notices).toEqual([{ text: "Removed 1 mailbox folder of closed sessions.", level: "info" }]);
  });

  it("keeps an old folder when pruneAfterDays in session-mail.json is longer than its age", () => {
    const h = createHarness();
    h.writeConfig(JSON.stringify({ pruneAfterDays: 60 }));
    h.launch("bob");
    closedCarol(h);
    age(h, "carol", 31);
    const alice = h.launch("alice");
    h.advance(pollMs);

    expect(h.exists(`${mailRoot}/${addressOf.carol}`)).toBe(true);
    expect(alice.host.notices).toEqual([]);
  });
});

describe("a prune never takes a live session's folder", () => {
  // Found by the simulator: a record that failed to read left the session out of the listing of
  // running sessions, and the prune removed its folder (owner record and claim journal with it).
  it("keeps the folder of a session whose record cannot be read at the moment of the listing", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.launch("bob");
    const record = `${mailRoot}/running/${addressOf.bob}.json`;
    const open = h.vol.openSync.bind(h.vol);
    h.vol.openSync = ((path: string, ...rest: unknown[]) => {
      if (String(path) === record) throw Object.assign(new Error("EIO: i/o error"), { code: "EIO" });
      return (open as (...args: unknown[]) => number)(path, ...rest);
    }) as typeof h.vol.openSync;
    try {
      expect(alice.engine.prune()._unsafeUnwrap()).toBe(0);
    } finally {
      h.vol.openSync = open;
    }
    expect(h.exists(`${mailRoot}/${addressOf.bob}/owner.json`)).toBe(true);
  });

  // A session takes its inbox (owner.json) as it starts and writes its record after: a reader in
  // another pid namespace cannot judge its pid, and must not take the missing record for an end.
  it("keeps the folder a session in another pid namespace owns before its record is written", () => {
    const h = createHarness();
    const alice = h.launch("alice", { spawn: { pidNamespace: "pid:[4026532389]" } });
    h.launch("bob");
    const record = `${mailRoot}/running/${addressOf.bob}.json`;
    h.vol.unlinkSync(record);
    expect(alice.engine.prune()._unsafeUnwrap()).toBe(0);
    expect(h.exists(`${mailRoot}/${addressOf.bob}/owner.json`)).toBe(true);
  });
});
