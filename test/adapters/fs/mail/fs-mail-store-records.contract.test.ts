// The contract of fs-mail-store.contract.test.ts, continued: running records and the facts pruning
// reads, on node fs and memfs alike; then the FIFO cases, on node fs only since memfs has no FIFOs.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import { runningRecordBytesMax } from "../../../../src/domain/mail/limits.js";
import type { MailStore } from "../../../../src/ports/mail/mail-store.js";
import { alice, type Backend, backends, bob, carol, envelope, nodeBackend, sentAtMs } from "../backends.js";

describe.each(backends)("fs mail store on $name", ({ make }) => {
  let b: Backend;
  let store: MailStore;
  const box = (who: string, sub = "") => `${b.root}/${who}${sub === "" ? "" : `/${sub}`}`;
  const record = (who: string) => `${b.root}/running/${who}.json`;

  beforeEach(() => {
    b = make();
    store = createFsMailStore({ fs: b.fs, root: b.root, uid: b.uid });
    expect(store.openRoot().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  describe("running records", () => {
    it("writes atomically (0600 in a 0700 running/, no temp file left) and reads back the latest text", () => {
      expect(store.writeRunning(alice, '{"v":1}').isOk()).toBe(true);
      expect(store.writeRunning(alice, '{"v":2}').isOk()).toBe(true);
      expect(store.readRunning(alice)._unsafeUnwrap()).toBe('{"v":2}');
      expect(b.raw.mode(record(alice))).toBe(0o600);
      expect(b.raw.mode(`${b.root}/running`)).toBe(0o700);
      expect(b.raw.list(`${b.root}/running`)).toEqual([`${alice}.json`]);
    });

    it("replaces a crashed writer's leftover temp file", () => {
      store.writeRunning(alice, "first");
      b.raw.write(`${b.root}/running/.${alice}.json.tmp`, "half");
      expect(store.writeRunning(alice, "second").isOk()).toBe(true);
      expect(store.readRunning(alice)._unsafeUnwrap()).toBe("second");
      expect(b.raw.list(`${b.root}/running`)).toEqual([`${alice}.json`]);
    });

    it("reads a missing record, a symlinked one and an oversized one as absent, never following the link", () => {
      expect(store.readRunning(alice)._unsafeUnwrap()).toBeUndefined();
      store.writeRunning(carol, "x".repeat(runningRecordBytesMax + 1));
      b.raw.write(`${b.outside}/forged.json`, "forged");
      b.raw.symlink(`${b.outside}/forged.json`, record(bob));
      expect(store.readRunning(bob)._unsafeUnwrap()).toBeUndefined();
      expect(store.readRunning(carol)._unsafeUnwrap()).toBeUndefined();
    });

    it("lists readable <address>.json records by name, skipping dot-files, other names, links and folders", () => {
      store.writeRunning(bob, "B");
      store.writeRunning(alice, "A");
      b.raw.write(`${b.root}/running/.hidden.json`, "H");
      b.raw.write(`${b.root}/running/notes.txt`, "N");
      b.raw.write(`${b.root}/running/bad..name.json`, "X");
      b.raw.symlink(`${b.outside}/none`, record(carol));
      b.raw.mkdir(record("dddddddd"));
      expect(store.listRunning()._unsafeUnwrap()).toEqual([
        { address: alice, text: "A" },
        { address: bob, text: "B" },
      ]);
    });

    it("says whether a record is there by one lstat: none, a record, anything else at its path", () => {
      expect(store.hasRunning(alice)).toBe(false);
      store.writeRunning(alice, "A");
      expect(store.hasRunning(alice)).toBe(true);
      b.raw.rename(record(alice), `${b.root}/running/.${alice}.json.reaping`);
      expect(store.hasRunning(alice)).toBe(false);
      b.raw.symlink(`${b.outside}/nowhere`, record(alice));
      expect(store.hasRunning(alice)).toBe(true);
    });

    it("lists nothing, without error, before any record was written", () => {
      expect(store.listRunning()._unsafeUnwrap()).toEqual([]);
    });

    it("removes a record only while it holds the expected text; gone counts as removed", () => {
      store.writeRunning(alice, "new text");
      expect(store.removeRunning(alice, "stale text").isOk()).toBe(true);
      expect(store.readRunning(alice)._unsafeUnwrap()).toBe("new text");
      expect(store.removeRunning(alice, "new text").isOk()).toBe(true);
      expect(b.raw.exists(record(alice))).toBe(false);
      expect(store.removeRunning(alice, "new text").isOk()).toBe(true);
      store.writeRunning(bob, "any");
      expect(store.removeRunning(bob, undefined).isOk()).toBe(true);
      expect(b.raw.exists(record(bob))).toBe(false);
    });
  });

  describe("listBoxes and removeBox", () => {
    it("lists real folders named like an address, with their newest mtime and whether mail waits", () => {
      store.deliver(envelope("m1"), sentAtMs, { durable: false });
      store.deliver(envelope("m2"), sentAtMs + 1, { durable: false });
      store.openBox(carol);
      store.writeRunning(alice, "A");
      b.raw.mkdir(box("not an address"));
      b.raw.write(box("eeeeeeee"), "a file named like an address");
      b.raw.mkdir(`${b.outside}/ffffffff`);
      b.raw.symlink(`${b.outside}/ffffffff`, box("ffffffff"));
      for (const [sub, seconds] of [
        ["", 100],
        ["tmp", 300],
        ["new", 200],
        ["cur", 150],
        ["sent", 250],
      ] as const) {
        b.raw.touch(box(carol, sub), seconds * 1000);
      }
      const facts = store.listBoxes()._unsafeUnwrap();
      const sorted = [...facts].sort((x, y) => (x.address < y.address ? -1 : 1));
      expect(sorted.map((f) => [f.address, f.waiting])).toEqual([
        [bob, 1],
        [carol, 0],
      ]);
      expect(sorted[1]?.lastActivityMs).toBe(300_000);
      expect(sorted[0]?.lastActivityMs).toBe(
        Math.max(...["", "tmp", "new", "cur", "sent"].map((s) => b.raw.mtimeMs(box(bob, s)))),
      );
    });

    it("counts a non-folder new/ as waiting, so the folder is never pruned", () => {
      store.openBox(carol);
      b.raw.rmTree(box(carol, "new"));
      b.raw.write(box(carol, "new"), "odd");
      expect(store.listBoxes()._unsafeUnwrap()).toMatchObject([{ address: carol, waiting: 1 }]);
    });

    it("removes a real address folder with everything in it, links removed but never followed", () => {
      store.deliver(envelope("m1"), sentAtMs, { durable: false });
      b.raw.write(`${b.outside}/keep`, "kept");
      b.raw.symlink(b.outside, box(bob, "cur/link"));
      // m1 waits in new/: a folder with unread mail is put back, never removed.
      expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(false);
      expect(b.raw.exists(box(bob, "new"))).toBe(true);
      b.raw.rmTree(box(bob, "new"));
      expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(true);
      expect(b.raw.exists(box(bob))).toBe(false);
      expect(b.raw.read(`${b.outside}/keep`)).toBe("kept");
      expect(store.removeBox(bob, undefined)._unsafeUnwrap()).toBe(true);
    });

    it("refuses to remove a symlinked address folder, leaving the link and its target", () => {
      b.raw.write(`${b.outside}/keep`, "kept");
      b.raw.symlink(b.outside, box(carol));
      expect(store.removeBox(carol, undefined)._unsafeUnwrapErr()).toEqual({ kind: "not-a-folder", path: box(carol) });
      expect(b.raw.isLink(box(carol))).toBe(true);
      expect(b.raw.read(`${b.outside}/keep`)).toBe("kept");
    });
  });
});

describe("fs mail store, node fs only (memfs has no FIFOs)", () => {
  let b: Backend;
  let store: MailStore;
  beforeEach(() => {
    b = nodeBackend();
    store = createFsMailStore({ fs: b.fs, root: b.root, uid: b.uid });
    expect(store.openRoot().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());
  const mkfifo = (path: string) => execFileSync("mkfifo", ["-m", "600", path]);

  it("node fs only (memfs has no FIFOs): a FIFO in new/ is set aside as not-a-file without blocking", () => {
    store.openBox(bob);
    mkfifo(`${b.root}/${bob}/new/000000000000001-fifo.json`);
    const outcome = store.claim(bob, "000000000000001-fifo.json")._unsafeUnwrap();
    expect(outcome).toMatchObject({ kind: "set-aside", reason: "not-a-file" });
    expect(store.readCur(bob, "000000000000001-fifo.json")._unsafeUnwrap()).toMatchObject({
      kind: "set-aside",
      reason: "not-a-file",
    });
  });

  it("node fs only (names are strings in memfs): a name that is not valid UTF-8 is listed as hidden, never as mail", () => {
    store.openBox(bob);
    const folder = Buffer.from(`${b.root}/${bob}/new/`);
    writeFileSync(Buffer.concat([folder, Buffer.from([0x30, 0xff, 0x2e, 0x6a, 0x73, 0x6f, 0x6e])]), "{}");
    writeFileSync(`${b.root}/${bob}/new/000000000000001-ok.json`, "{}");
    const listed = store.listNew(bob)._unsafeUnwrap();
    expect(listed.names).toEqual(["000000000000001-ok.json"]);
    expect(listed.hidden).toEqual(["0\ufffd.json"]);
  });

  it("node fs only (memfs has no FIFOs): a FIFO as running record reads as absent, as claim journal as damaged, without blocking", () => {
    store.writeRunning(alice, "A");
    store.openBox(bob);
    mkfifo(`${b.root}/running/${bob}.json`);
    mkfifo(`${b.root}/${bob}/claiming.json`);
    expect(store.readRunning(bob)._unsafeUnwrap()).toBeUndefined();
    expect(store.listRunning()._unsafeUnwrap()).toEqual([{ address: alice, text: "A" }]);
    expect(store.readClaimJournal(bob)._unsafeUnwrap()).toEqual({ names: [], damaged: "not-a-file" });
  });

  it("node fs only (memfs has no FIFOs): sweepTmp leaves an old FIFO in tmp/ alone", () => {
    store.openBox(bob);
    const fifo = `${b.root}/${bob}/tmp/old-fifo`;
    mkfifo(fifo);
    b.raw.touch(fifo, 1_000);
    expect(store.sweepTmp(bob, Date.now(), 1_000)._unsafeUnwrap()).toBe(0);
    expect(b.raw.list(`${b.root}/${bob}/tmp`)).toEqual(["old-fifo"]);
  });
});
