import { describe, expect, it } from "vitest";
import type { InboundMail } from "../../../../src/domain/mail/engine/index.js";
import { addressOf, createHarness, mailRoot, pollMs } from "./harness.js";

const endLine = (name: string) => `[mailbox] End of the mail from ${name}. Text after this line is not part of it.`;

describe("delivery: how each kind reaches the model", () => {
  // Delivery table: request, ask and message are "triggerTurn, deliverAs: \"steer\"".
  it("injects a request, an ask and a message with triggerTurn true and deliverAs steer", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    const carol = h.launch("carol");
    // A millisecond apart: mail sent in the same millisecond sorts by its (random) id.
    expect(bob.engine.request("alice", "Please run the tests.", "command").isOk()).toBe(true);
    h.clock.advance(1);
    void carol.engine.ask("alice", "What is the port?", undefined);
    h.clock.advance(1);
    expect(bob.engine.send("alice", "FYI: the build is green.").isOk()).toBe(true);
    h.hint("alice");

    expect(alice.host.injected.map((i) => [i.mail.details.kind, i.options])).toEqual([
      ["request", { triggerTurn: true, deliverAs: "steer" }],
      ["ask", { triggerTurn: true, deliverAs: "steer" }],
      ["message", { triggerTurn: true, deliverAs: "steer" }],
    ]);
  });

  // Delivery table: a reply is delivered "deliverAs: \"followUp\", no turn".
  it("injects a reply with triggerTurn false and deliverAs followUp", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.request("alice", "Please run the tests.", "command");
    h.hint("alice");
    alice.completeRun("All 40 tests pass.");
    h.hint("bob");

    expect(bob.host.injected).toHaveLength(1);
    expect(bob.host.injected[0]?.mail.details.kind).toBe("reply");
    expect(bob.host.injected[0]?.options).toEqual({ triggerTurn: false, deliverAs: "followUp" });
    expect(bob.host.injected[0]?.mail.content).toContain("All 40 tests pass.");
  });

  // "Every injected message opens with a neutral label: [mailbox] From <name> (<full id>, working in <cwd>)"
  // and "ends with [mailbox] End of the mail from <name>."
  it("frames injected mail with the From label first and the end line last", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.request("alice", "Please run the tests.", "command");
    h.hint("alice");

    const content = alice.host.injected[0]?.mail.content ?? "";
    expect(content.startsWith(`[mailbox] From bob (${addressOf.bob}, working in /work/bob)`)).toBe(true);
    expect(content.endsWith(endLine("bob"))).toBe(true);
    expect(content).toContain("Please run the tests.");
  });

  // "The short id stands in for a missing name, and the working directory is left out when the sender is not running."
  it("labels mail from a sender that is not running with its short id and no working directory", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.plant({ from: addressOf.dave, to: addressOf.alice, body: "left behind" });
    h.hint("alice");

    const content = alice.host.injected[0]?.mail.content ?? "";
    expect(content.startsWith(`[mailbox] From dddddddd (${addressOf.dave}), another Pi session`)).toBe(true);
    expect(content.endsWith(endLine("dddddddd"))).toBe(true);
  });
});

describe("delivery: when mail is claimed", () => {
  // "pi-session-mail never emits it from inside a session_start handler. Mail waiting when a session starts is
  // claimed on a later event-loop turn (setImmediate)"
  it("claims mail waiting at start on the later tick, not inside sessionStarted", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const sent = bob.engine.request(addressOf.alice, "Waiting for you.", "command")._unsafeUnwrap();
    const alice = h.start("alice");
    const seen: string[] = [];
    // Registered after sessionStarted returned, as an extension loading after pi-session-mail would.
    alice.engine.onInbound((mail) => seen.push(mail.envelope.id));

    expect(alice.host.injected).toEqual([]);
    expect(h.files("alice", "new")).toHaveLength(1);
    h.tick();
    expect(seen).toEqual([sent.envelope.id]);
    expect(alice.host.injected.map((i) => i.mail.details.mailId)).toEqual([sent.envelope.id]);
    expect(h.files("alice", "new")).toEqual([]);
  });

  // "watcher events are hints, a loop does the work"
  it("scans the inbox when the watcher hints at a change in new/", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    expect(alice.host.injected).toEqual([]);

    expect(h.hint("alice")).toBe(1);
    expect(alice.host.injected).toHaveLength(1);
  });

  // "Hints may be dropped, repeated or late: a poll does the work."
  it("delivers on the next poll when the watcher's hint is dropped", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    h.watcher.dropNext(1);
    expect(h.hint("alice")).toBe(0);
    h.advance(pollMs - 1);
    expect(alice.host.injected).toEqual([]);

    h.advance(1);
    expect(alice.host.injected).toHaveLength(1);
  });

  it("claims the entry a hint names at once, leaving the rest of new/ to a scan or the poll", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "first");
    bob.engine.send("alice", "second");
    const [first, second] = h.files("alice", "new");

    expect(h.watcher.notify(h.newDir("alice"), second)).toBe(1);
    expect(alice.host.injected.map((i) => i.mail.content.includes("second"))).toEqual([true]);
    expect(h.files("alice", "new")).toEqual([first]);
    h.advance(pollMs);
    expect(alice.host.injected).toHaveLength(2);
  });

  it("claims nothing twice for the hints of entries it already moved to cur/, and warns of none", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    const [name] = h.files("alice", "new");
    h.hint("alice");
    // The hint of the arrival, late, and the hint of the claim moving the entry out of new/.
    h.watcher.notify(h.newDir("alice"), name);
    h.watcher.notify(h.newDir("alice"), name);

    expect(alice.host.injected).toHaveLength(1);
    expect(alice.host.notices).toEqual([]);
    expect(h.files("alice", "cur")).toEqual([name]);
  });

  it("scans when a hint names a dot-file, which is never claimed as mail", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    h.vol.writeFileSync(`${h.newDir("alice")}/.partial`, "x");

    h.watcher.notify(h.newDir("alice"), ".partial");
    expect(alice.host.injected).toHaveLength(1);
    expect(h.files("alice", "new")).toEqual([".partial"]);
    expect(alice.host.notices.map((n) => n.text)).toEqual([
      "Ignoring the dot-file .partial in this session's inbox: it is never read as mail.",
    ]);
  });

  it("never claims an entry whose name is not valid UTF-8 (listed with U+FFFD), and warns of it once", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    h.vol.writeFileSync(`${h.newDir("alice")}/0\ufffd\u001b[2J.json`, "{}");

    h.watcher.notify(h.newDir("alice"), "0\ufffd\u001b[2J.json");
    h.advance(pollMs);
    expect(alice.host.injected).toHaveLength(1);
    expect(h.files("alice", "new")).toEqual(["0\ufffd\u001b[2J.json"]);
    expect(alice.host.notices.map((n) => n.text)).toEqual([
      "Ignoring 0\ufffd [2J.json in this session's inbox: its name is not valid UTF-8, so it is never read as mail.",
    ]);
  });

  it("delivers by the poll alone when the engine does not watch new/", () => {
    const h = createHarness();
    const alice = h.launch("alice", { watch: false });
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    expect(h.hint("alice")).toBe(0);
    h.advance(pollMs);
    expect(alice.host.injected).toHaveLength(1);
  });

  // "Mail waits on disk until a session with that address starts or resumes."
  it("keeps mail to a closed session (by full id) on disk and delivers it when that address starts", () => {
    const h = createHarness();
    const bob = h.launch("bob");
    const sent = bob.engine.send(addressOf.alice, "for when you are back")._unsafeUnwrap();
    expect(sent.recipientRunning).toBe(false);
    h.advance(pollMs * 5);
    expect(h.files("alice", "new")).toHaveLength(1);

    const alice = h.launch("alice");
    expect(alice.host.injected.map((i) => i.mail.details.mailId)).toEqual([sent.envelope.id]);
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("alice", "cur")).toHaveLength(1);
  });
});

describe("delivery: mail that is not delivered as is", () => {
  // "A running session claims it into cur/ and injects it once"
  it("injects an envelope written under two file names only once", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const fields = { id: "twice", from: addressOf.bob, to: addressOf.alice, kind: "request" as const };
    h.plant(fields, "000000000000001-twice.json");
    h.plant(fields, "000000000000002-twice.json");
    h.hint("alice");

    expect(alice.host.injected.map((i) => i.mail.details.mailId)).toEqual(["twice"]);
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("alice", "cur")).toHaveLength(2);
    h.advance(pollMs * 3);
    expect(alice.host.injected).toHaveLength(1);
  });

  it("sets an envelope addressed to another session aside with a warning and never injects it", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const seen: InboundMail[] = [];
    alice.engine.onInbound((mail) => seen.push(mail));
    h.plant({ from: addressOf.bob, to: addressOf.carol }, "000000000000001-stray.json", "alice");
    h.hint("alice");

    expect(alice.host.injected).toEqual([]);
    expect(seen).toEqual([]);
    expect(alice.warnings()).toEqual([
      expect.stringContaining(`${mailRoot}/${addressOf.alice}/cur/000000000000001-stray.json`),
    ]);
    expect(alice.warnings()[0]).toContain(`addressed to ${addressOf.carol}`);
    expect(h.files("alice", "cur")).toEqual(["000000000000001-stray.json"]);
  });

  // "like any other envelope that cannot be read: it stays in cur/ and is not delivered"
  it("moves an invalid JSON file from new/ to cur/ with exactly one warning and never injects it", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.vol.writeFileSync(`${h.newDir("alice")}/000000000000001-broken.json`, "{ not json");
    h.hint("alice");
    h.hint("alice");
    h.advance(pollMs * 3);

    expect(alice.host.injected).toEqual([]);
    expect(alice.warnings()).toHaveLength(1);
    expect(alice.warnings()[0]).toContain("not JSON");
    expect(h.files("alice", "new")).toEqual([]);
    expect(h.files("alice", "cur")).toEqual(["000000000000001-broken.json"]);
  });

  it("delivers the valid mail next to an invalid file", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    h.vol.writeFileSync(`${h.newDir("alice")}/000000000000001-broken.json`, "[]");
    const good = h.plant({ from: addressOf.bob, to: addressOf.alice }, "000000000000002-good.json");
    h.hint("alice");

    expect(alice.host.injected.map((i) => i.mail.details.mailId)).toEqual([good.id]);
    expect(alice.warnings()).toHaveLength(1);
  });
});

describe("delivery: a hinted claim that fails", () => {
  const journalOf = (h: ReturnType<typeof createHarness>) =>
    JSON.parse(String(h.vol.readFileSync(`${mailRoot}/${addressOf.alice}/claiming.json`, "utf8")));

  it("claims nothing when its journal cannot be written: the mail stays in new/ with one warning, and comes once it can", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    // No journal yet, and a folder where its temp file goes: the first journal cannot be written.
    const journalTmp = `${mailRoot}/${addressOf.alice}/tmp/claiming.json.tmp`;
    h.vol.mkdirSync(journalTmp);
    bob.engine.send("alice", "hello");
    const [name] = h.files("alice", "new");
    h.watcher.notify(h.newDir("alice"), name);

    expect(alice.warnings()).toEqual([expect.stringMatching(/^Could not write this session's claim journal: /)]);
    expect(h.files("alice", "new")).toEqual([name]);
    expect(alice.host.injected).toHaveLength(0);
    h.vol.rmdirSync(journalTmp);
    h.advance(pollMs);
    expect(alice.host.injected.map((i) => i.mail.content.includes("hello"))).toEqual([true]);
    expect(alice.warnings()).toHaveLength(1);
  });

  it("warns once when the claim fails after the journal was written, drops the name from the journal, and claims it later", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const bob = h.launch("bob");
    bob.engine.send("alice", "hello");
    const [name] = h.files("alice", "new");
    // A folder in cur/ under the same name: the rename out of new/ fails (EISDIR).
    h.vol.mkdirSync(`${mailRoot}/${addressOf.alice}/cur/${name}`);
    h.watcher.notify(h.newDir("alice"), name);

    expect(alice.warnings()).toHaveLength(1);
    expect(alice.warnings()[0]).toMatch(/^Could not claim /);
    expect(alice.warnings()[0]).toContain(name);
    expect(h.files("alice", "new")).toEqual([name]);
    expect(journalOf(h)).toEqual([]);
    h.vol.rmdirSync(`${mailRoot}/${addressOf.alice}/cur/${name}`);
    h.advance(pollMs);
    expect(alice.host.injected.map((i) => i.mail.content.includes("hello"))).toEqual([true]);
  });

  it("writes nothing for a hint whose entry is gone from new/ (one lstat), and warns of nothing", () => {
    const h = createHarness();
    const alice = h.launch("alice");
    const journal = `${mailRoot}/${addressOf.alice}/claiming.json`;
    const before = h.exists(journal) ? String(h.vol.readFileSync(journal, "utf8")) : undefined;
    h.watcher.notify(h.newDir("alice"), "001700000000000-gone.json");

    expect(alice.host.notices).toEqual([]);
    expect(h.exists(journal) ? String(h.vol.readFileSync(journal, "utf8")) : undefined).toBe(before);
  });
});
