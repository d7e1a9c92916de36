// A live session on the real filesystem, fed what any process of the same user can write into its
// inbox and into running/: the engine keeps running, sets each bad entry aside once with one
// warning, injects each valid envelope exactly once under a clean label, never blocks on a FIFO and
// never reads or changes anything outside the mail root.
// Replay a failure with HOSTILE_SEED=<seed> HOSTILE_PATH=<path> (fast-check prints both).
import * as fs from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { pollIntervalMs } from "../../src/domain/mail/limits.js";
import { createNodeMailbox } from "../../src/wiring/node-mailbox.js";
import { fixedWorld, runPlan } from "./hostile-batch.js";
import {
  deliverFromPeer,
  injectedIds,
  newTotals,
  replay,
  runLive,
  running,
  runOnce,
  scanBoundMs,
  sleep,
  type Trigger,
  trigger,
} from "./hostile-runs.js";
import {
  createRecordingHost,
  describeEntry,
  envelopeJson,
  expectSealed,
  makeFifos,
  mkdir,
  neverMarker,
  type RecordingHost,
  removeWorld,
  seal,
  startVirtualSession,
  type World,
} from "./hostile-world.js";

// Cleanup for the fixed tests; the property cleans up after each of its runs itself.
let world: World | undefined;
let stopEngine: (() => void) | undefined;
afterEach(() => {
  stopEngine?.();
  removeWorld(world);
  world = undefined;
  stopEngine = undefined;
});

/** What a hostile writer does: the file straight into new/, no tmp/, no rename. */
function writeDirect(w: World, id: string, fields: Record<string, unknown>): void {
  const mail = envelopeJson({ id, from: running, to: w.self, ...fields });
  fs.writeFileSync(join(w.newDir, `000000000000001-${id}.json`), mail, { mode: 0o600 });
}

describe("a live session fed hostile entries on the real filesystem", () => {
  it("sets each bad entry aside once with one warning, injects each valid envelope once under a clean label, and touches nothing outside the mail root (property)", () => {
    const totals = newTotals();
    fc.assert(
      fc.property(runPlan(20, 26), fc.constantFrom<Trigger>("scan", "hint", "poll"), fc.boolean(), (plan, how, split) =>
        runOnce(plan, how, split, totals),
      ),
      { numRuns: 50, ...replay() },
    );
    if (process.env.HOSTILE_SEED !== undefined) return;
    expect(totals.runs).toBe(50);
    expect(totals.hostileInbox, "hostile entries written into new/").toBeGreaterThanOrEqual(1_000);
    console.info(
      `hostile input: ${totals.runs} runs, ${totals.hostileInbox} hostile inbox entries, ${totals.hostileRecords} hostile running records, ${totals.valid} valid envelopes, slowest scan ${Math.round(totals.slowestScanMs)} ms`,
    );
  });
});

describe("the production wiring fed hostile entries while it runs", () => {
  it("sets each bad entry aside once and injects each valid envelope once, whatever order the watcher and the poll see them in (property)", async () => {
    const totals = newTotals();
    await fc.assert(
      fc.asyncProperty(runPlan(20, 26), (plan) => runLive(plan, totals)),
      { numRuns: 3, ...replay() },
    );
    if (process.env.HOSTILE_SEED === undefined) expect(totals.hostileInbox).toBeGreaterThanOrEqual(60);
  });
});

describe("a mail root or mailbox folder that is a symlink", () => {
  async function startOver(w: World, host: RecordingHost): Promise<void> {
    const engine = createNodeMailbox({ host, agentDir: w.agentDir, root: w.root });
    stopEngine = () => engine.shutdown();
    engine.sessionStarted({ address: w.self, name: "victim", cwd: w.base });
    await sleep(2 * pollIntervalMs);
    engine.scan();
    engine.shutdown();
  }

  function layoutIn(dir: string, w: World): void {
    for (const box of ["new", "cur", "tmp", "sent"]) mkdir(join(dir, w.self, box));
    mkdir(join(dir, "running"));
    const mail = envelopeJson({ id: "through-link", from: running, to: w.self, body: neverMarker });
    fs.writeFileSync(join(dir, w.self, "new", "000000000000001-through-link.json"), mail);
  }

  it("follows a mail root that is a symlink of this user's to a folder of this user's: the mail there is delivered", async () => {
    const w = fixedWorld();
    world = w;
    const target = join(w.base, "root-target");
    layoutIn(target, w);
    fs.rmSync(w.root, { recursive: true });
    fs.symlinkSync(target, w.root);
    const host = createRecordingHost();
    await startOver(w, host);
    expect(host.notices).toEqual([]);
    expect(injectedIds(host)).toEqual(["through-link"]);
    expect(fs.statSync(target).mode & 0o777).toBe(0o700);
  });

  it("refuses a mail root that is a link to nothing with one error notice naming the fix, and creates nothing through it", async () => {
    const w = fixedWorld();
    world = w;
    const outside = join(w.trap, "root-target");
    fs.rmSync(w.root, { recursive: true });
    fs.symlinkSync(outside, w.root);
    const trap = seal(w.trap);
    const host = createRecordingHost();
    await startOver(w, host);
    expect(host.notices).toEqual([
      { level: "error", text: expect.stringMatching(/^The mailbox is off for this session: .*or remove the link/) },
    ]);
    expect(host.injected).toEqual([]);
    expect(fs.lstatSync(w.root).isSymbolicLink()).toBe(true);
    expectSealed(trap);
  });

  it("refuses an address folder that is a symlink out of the root with one error notice, and never follows it", async () => {
    const w = fixedWorld();
    world = w;
    const outside = join(w.trap, "address-target");
    layoutIn(outside, w);
    fs.rmSync(w.selfDir, { recursive: true });
    fs.symlinkSync(join(outside, w.self), w.selfDir);
    const trap = seal(w.trap);
    const host = createRecordingHost();
    await startOver(w, host);
    expect(host.notices).toEqual([{ level: "error", text: expect.stringContaining("is not a real folder") }]);
    expect(host.injected).toEqual([]);
    expectSealed(trap);
  });
});

describe("boxes of a live session swapped for symlinks", () => {
  it.each([
    ["a folder outside the root", (w: World) => join(w.trap, "inbox")],
    ["a folder inside the root", (w: World) => join(w.inside, "dir")],
    ["nothing (dangling)", (w: World) => join(w.trap, "missing")],
  ])("refuses a new/ that is a symlink to %s, warning once, and delivers again once new/ is a real folder", (_, to) => {
    const w = fixedWorld();
    world = w;
    const s = startVirtualSession(w);
    stopEngine = () => s.engine.shutdown();
    const sealed = [seal(w.trap), seal(w.inside)];
    fs.rmdirSync(w.newDir);
    fs.symlinkSync(to(w), w.newDir);
    for (const how of ["scan", "poll", "poll", "scan"] as const) trigger(s, w, how);
    expect(s.host.injected).toEqual([]);
    expect(s.host.notices.map((n) => n.text)).toEqual([expect.stringContaining("Could not read this session's inbox")]);
    expect(fs.lstatSync(w.newDir).isSymbolicLink()).toBe(true);
    for (const one of sealed) expectSealed(one);

    fs.unlinkSync(w.newDir);
    mkdir(w.newDir);
    deliverFromPeer(w, "after-link");
    trigger(s, w, "poll");
    expect(injectedIds(s.host)).toEqual(["after-link"]);
  });

  it("leaves mail waiting in new/ while cur/ is a symlink out of the root, warning once per entry, and delivers it once cur/ is real again", () => {
    const w = fixedWorld();
    world = w;
    const s = startVirtualSession(w);
    stopEngine = () => s.engine.shutdown();
    for (const id of ["wait-1", "wait-2", "wait-3"]) deliverFromPeer(w, id);
    const waiting = fs.readdirSync(w.newDir).sort();
    fs.rmdirSync(w.curDir);
    fs.symlinkSync(join(w.trap, "dir"), w.curDir);
    const trap = seal(w.trap);
    for (const how of ["poll", "scan", "poll"] as const) trigger(s, w, how);
    expect(s.host.injected).toEqual([]);
    expect(fs.readdirSync(w.newDir).sort()).toEqual(waiting);
    expect(s.host.notices.map((n) => waiting.filter((name) => n.text.includes(name)).length)).toEqual([1, 1, 1]);
    expectSealed(trap);

    fs.unlinkSync(w.curDir);
    mkdir(w.curDir);
    trigger(s, w, "poll");
    trigger(s, w, "poll");
    expect(injectedIds(s.host).sort()).toEqual(["wait-1", "wait-2", "wait-3"]);
    expect(s.host.notices).toHaveLength(3);
  });

  it("still delivers, and reads or writes nothing outside, when sent/ and claiming.json are symlinks out of the root", () => {
    const w = fixedWorld();
    world = w;
    const s = startVirtualSession(w);
    stopEngine = () => s.engine.shutdown();
    fs.rmSync(w.sentDir, { recursive: true });
    fs.symlinkSync(join(w.trap, "dir"), w.sentDir);
    fs.symlinkSync(join(w.trap, "note.txt"), join(w.selfDir, "claiming.json"));
    const trap = seal(w.trap);
    // A real writer refuses a recipient whose sent/ is a link: a hostile one writes into new/ directly.
    writeDirect(w, "plain-message", { body: "Hello." });
    // trap/dir holds a file named like the sent copy of "trap-dir": followed, the reply would quote it.
    writeDirect(w, "direct-reply", { kind: "reply", status: "done", in_reply_to: ["trap-dir"], body: "Done." });
    trigger(s, w, "poll");
    expect(injectedIds(s.host).sort()).toEqual(["direct-reply", "plain-message"]);
    const reply = s.host.injected.find((i) => i.mail.details.mailId === "direct-reply")?.mail.content ?? "";
    expect(reply).toContain("- trap-dir (this session kept no copy)");
    for (const i of s.host.injected) expect(i.mail.content).not.toContain(neverMarker);
    expect(s.host.notices).toEqual([]);
    expectSealed(trap);
  });

  it("writes nothing through a tmp/ that is a symlink out of the root and loses no mail: each envelope is shown once, then or once tmp/ is real again", () => {
    const w = fixedWorld();
    world = w;
    const s = startVirtualSession(w);
    stopEngine = () => s.engine.shutdown();
    fs.rmSync(w.tmpDir, { recursive: true });
    fs.symlinkSync(join(w.trap, "dir"), w.tmpDir);
    // A folder where the journal belongs cannot be written in place nor removed: the journal has to
    // go through a temp file in tmp/, which must never be created through the linked tmp/.
    const journalDir = join(w.selfDir, "claiming.json");
    mkdir(journalDir);
    fs.writeFileSync(join(journalDir, "keep"), "");
    const trap = seal(w.trap);
    // No writer can publish through a linked tmp/: a hostile one writes into new/ directly.
    const ids = ["direct-1", "direct-2"];
    for (const id of ids) writeDirect(w, id, { body: "Hello." });
    for (const how of ["poll", "scan", "poll"] as const) trigger(s, w, how);
    s.clock.advance(240 * pollIntervalMs); // the tmp/ sweep runs every 240 polls
    for (const id of ids) {
      const shown = injectedIds(s.host).filter((x) => x === id).length;
      const waiting = fs.readdirSync(w.newDir).some((name) => name.includes(id));
      expect([shown, waiting], `${id} is shown once or still waiting in new/`).toSatisfy(
        ([n, left]: [number, boolean]) => (n === 1 && !left) || (n === 0 && left),
      );
    }
    expect(s.host.notices.length).toBeLessThanOrEqual(1);

    fs.unlinkSync(w.tmpDir);
    mkdir(w.tmpDir);
    fs.rmSync(journalDir, { recursive: true });
    trigger(s, w, "poll");
    expect(injectedIds(s.host).sort()).toEqual(ids);
    expectSealed(trap);
  });
});

describe("hostile state a live session finds at start or cannot name", () => {
  it("re-delivers only a real envelope file that a hostile claim journal names, never a path, dot-file, link, FIFO or folder", () => {
    const w = fixedWorld();
    world = w;
    const valid = (id: string) => envelopeJson({ id, from: running, to: w.self, body: "Recovered." });
    fs.symlinkSync(join(w.trap, "envelope.json"), join(w.curDir, "link.json"));
    fs.mkdirSync(join(w.curDir, "dir.json"));
    fs.writeFileSync(join(w.curDir, "dir.json", "inner.json"), valid("inner-1"));
    fs.writeFileSync(join(w.curDir, "valid.json"), valid("recovered-1"));
    fs.writeFileSync(join(w.curDir, ".hidden.json"), valid("hidden-1"));
    fs.writeFileSync(join(w.curDir, "bad.json"), "\u0000{");
    makeFifos([join(w.curDir, "fifo.json")]);
    const journal = ["../../../trap/envelope.json", ".hidden.json", "a/b", "link.json", "fifo.json", "dir.json"];
    const names = [...journal, "valid.json", "bad.json", "missing.json", 5, null, "x".repeat(300)];
    fs.writeFileSync(join(w.selfDir, "claiming.json"), JSON.stringify(names));
    const cur = describeEntry(w.curDir);
    const trap = seal(w.trap);
    const started = performance.now();
    const s = startVirtualSession(w);
    stopEngine = () => s.engine.shutdown();
    expect(performance.now() - started, "recovery ends within its bound").toBeLessThan(scanBoundMs);
    expect(injectedIds(s.host)).toEqual(["recovered-1"]);
    expect(s.host.notices).toEqual([]);
    expect(describeEntry(w.curDir)).toBe(cur);
    expectSealed(trap);
  });

  it("never delivers nor blocks on a file whose name is not UTF-8, and keeps delivering later mail", () => {
    const w = fixedWorld();
    world = w;
    const s = startVirtualSession(w);
    stopEngine = () => s.engine.shutdown();
    const raw = Buffer.concat([
      Buffer.from(`${w.newDir}/`),
      Buffer.from([0x45, 0xff, 0xfe, 0x80]),
      Buffer.from(".json"),
    ]);
    fs.writeFileSync(raw, envelopeJson({ id: "raw-1", from: running, to: w.self, body: neverMarker }));
    const trap = seal(w.trap);
    for (const how of ["scan", "hint", "poll", "poll"] as const) {
      expect(trigger(s, w, how), "each scan ends within its bound").toBeLessThan(scanBoundMs);
    }
    expect(s.host.injected).toEqual([]);
    expect(s.host.notices.length).toBeLessThanOrEqual(1);
    deliverFromPeer(w, "after-raw");
    trigger(s, w, "poll");
    expect(injectedIds(s.host)).toEqual(["after-raw"]);
    expectSealed(trap);
  });
});
