// One contract, two filesystems: the fs mail store on real node fs (a fresh temp folder per test)
// and on memfs (what the simulator runs on). memfs differences that matter here:
// - no umask: node applies the process umask at create, memfs keeps the mode given; the store
//   passes 0700/0600 and chmods the folders it creates, so the modes below hold on both.
// - rename of a symlink: raw memfs moves the link's target (a file outside the root!) and leaves
//   the link; createMemoryFs moves the link itself, as Linux does ("symlink in new/" pins it).
// - rename over a folder: raw memfs replaces it; createMemoryFs refuses like Linux (EISDIR,
//   ENOTEMPTY), which the "folder in cur/" test pins on both.
// - no FIFOs: the FIFO cases run on node fs only (fs-mail-store-records.contract.test.ts), and
//   say so in their names.
// - O_NONBLOCK is ignored by memfs (nothing there can block); O_NOFOLLOW and O_EXCL behave as on Linux.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import { readOwnEntry } from "../../../../src/adapters/fs/shared/fs-read.js";
import type { Address } from "../../../../src/domain/mail/address.js";
import { decodeEnvelope, encodeEnvelope, envelopeFileName } from "../../../../src/domain/mail/envelope.js";
import { askLedgerAsksMax, envelopeFileBytesMax, idCharsMax, tmpSweepMax } from "../../../../src/domain/mail/limits.js";
import type { MailStore } from "../../../../src/ports/mail/mail-store.js";
import { address, alice, type Backend, backends, bob, carol, envelope, sentAtMs } from "../backends.js";

/** An envelope's file text of exactly `bytes` bytes (its body filled out with ASCII). */
function envelopeOfBytes(bytes: number): string {
  const bare = envelope("sized", { body: "" });
  return encodeEnvelope({ ...bare, body: "x".repeat(bytes - encodeEnvelope(bare).length) });
}

describe.each(backends)("fs mail store on $name", ({ make }) => {
  let b: Backend;
  let store: MailStore;
  const box = (who: Address, sub = "") => `${b.root}/${who}${sub === "" ? "" : `/${sub}`}`;

  beforeEach(() => {
    b = make();
    store = createFsMailStore({ fs: b.fs, root: b.root, uid: b.uid });
    expect(store.openRoot().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  describe("root and boxes", () => {
    it("creates the root 0700 and sets an existing root back to 0700 on every open", () => {
      expect(b.raw.mode(b.root)).toBe(0o700);
      b.raw.chmod(b.root, 0o755);
      expect(store.openRoot().isOk()).toBe(true);
      expect(b.raw.mode(b.root)).toBe(0o700);
    });

    it("follows a root that is a symlink of this user's to a folder of this user's, and tightens that folder to 0700", () => {
      b.raw.chmod(b.outside, 0o755);
      const linked = `${b.root}-link`;
      b.raw.symlink(b.outside, linked);
      const linkedStore = createFsMailStore({ fs: b.fs, root: linked, uid: b.uid });
      expect(linkedStore.openRoot().isOk()).toBe(true);
      expect(b.raw.mode(b.outside)).toBe(0o700);
      expect(linkedStore.openBox(bob).isOk()).toBe(true);
      expect(b.raw.exists(`${b.outside}/${bob}/new`)).toBe(true);
      expect(linkedStore.checkRoot().isOk()).toBe(true);
      // Retargeted, it is another root.
      b.raw.unlink(linked);
      b.raw.symlink(b.root, linked);
      expect(linkedStore.checkRoot()._unsafeUnwrapErr()).toMatchObject({ kind: "root-replaced", path: linked });
    });

    it("refuses a root that is a link another user owns, and leaves the folder it leads to alone", () => {
      b.raw.chmod(b.outside, 0o755);
      const linked = `${b.root}-link`;
      b.raw.symlink(b.outside, linked);
      // As a user who owns neither the link nor its folder (root's, on a machine where the test runs as root).
      const someoneElse = b.uid + 1;
      const result = createFsMailStore({ fs: b.fs, root: linked, uid: someoneElse }).openRoot();
      expect(result.isErr()).toBe(true);
      expect(b.raw.mode(b.outside)).toBe(0o755);
    });

    it("refuses a root that is a link to nothing, naming the fix", () => {
      const linked = `${b.root}-link`;
      b.raw.symlink(`${b.outside}/missing`, linked);
      const result = createFsMailStore({ fs: b.fs, root: linked, uid: b.uid }).openRoot();
      expect(result._unsafeUnwrapErr()).toMatchObject({ kind: "io", code: "ENOENT" });
      expect(result._unsafeUnwrapErr()).toMatchObject({
        message: expect.stringContaining(`create it (mkdir -m 700 ${b.outside}/missing) or remove the link`),
      });
      expect(b.raw.exists(`${b.outside}/missing`)).toBe(false);
    });

    it("openBox creates the four boxes 0700 and reports a folder open to other users without changing it", () => {
      expect(store.openBox(bob)._unsafeUnwrap()).toEqual({ path: box(bob), openToOthers: false });
      for (const sub of ["", "tmp", "new", "cur", "sent"]) expect(b.raw.mode(box(bob, sub))).toBe(0o700);
      b.raw.chmod(box(bob), 0o750);
      expect(store.openBox(bob)._unsafeUnwrap().openToOthers).toBe(true);
      expect(b.raw.mode(box(bob))).toBe(0o750);
    });

    it("refuses a box folder that is a symlink, writing nothing through it", () => {
      store.openBox(bob);
      b.raw.rmTree(box(bob, "new"));
      b.raw.symlink(b.outside, box(bob, "new"));
      expect(store.listNew(bob)._unsafeUnwrapErr()).toEqual({ kind: "not-a-folder", path: box(bob, "new") });
      expect(store.deliver(envelope("m1"), sentAtMs, { durable: true })._unsafeUnwrapErr().kind).toBe("not-a-folder");
      expect(b.raw.list(b.outside)).toEqual([]);
    });

    it("returns errors as values: an address folder that is a file, a removed root", () => {
      b.raw.write(box(bob), "not a folder");
      const refused = store.deliver(envelope("m1"), sentAtMs, { durable: true });
      expect(refused._unsafeUnwrapErr()).toEqual({ kind: "not-a-folder", path: box(bob) });
      b.raw.rmTree(b.root);
      const failed = store.deliver(envelope("m1"), sentAtMs, { durable: false })._unsafeUnwrapErr();
      expect(failed).toMatchObject({ kind: "io", op: "mkdir", code: "ENOENT" });
      expect(store.listNew(bob)._unsafeUnwrapErr()).toMatchObject({ kind: "io", code: "ENOENT" });
    });

    it("never turns the running/ folder into a mailbox", () => {
      const running = address("running");
      expect(store.openBox(running)._unsafeUnwrapErr()).toEqual({ kind: "not-a-folder", path: box(running) });
      expect(b.raw.exists(box(running))).toBe(false);
    });
  });

  describe("the ask ledger", () => {
    it("reads back the largest ledger the engine can write: 1,000 open and 1,000 answered ids of the longest, worst-escaped kind", () => {
      // An id is data: up to 1,024 characters, each 6 bytes once JSON escapes a control character.
      const id = (i: number) => `${i}`.padStart(idCharsMax, "\u0001");
      const open = Array.from({ length: askLedgerAsksMax }, (_, i) => [id(i), alice]);
      const answered = Array.from({ length: askLedgerAsksMax }, (_, i) => id(askLedgerAsksMax + i));
      const text = JSON.stringify({ open, answered });
      expect(store.writeAskLedger(bob, text).isOk()).toBe(true);
      expect(store.readAskLedger(bob)._unsafeUnwrap()).toBe(text);
    });
  });

  describe("deliver and keepSent", () => {
    it.each([true, false])(
      "publishes atomically (durable %s): tmp/ empty, exactly the final name in new/, 0600",
      (durable) => {
        const mail = envelope("m1");
        const name = envelopeFileName(sentAtMs, "m1");
        const result = store.deliver(mail, sentAtMs, { durable });
        expect(result._unsafeUnwrap()).toEqual({ path: `${box(bob, "new")}/${name}` });
        expect(b.raw.list(box(bob, "tmp"))).toEqual([]);
        expect(b.raw.list(box(bob, "new"))).toEqual([name]);
        expect(b.raw.mode(`${box(bob, "new")}/${name}`)).toBe(0o600);
        expect(decodeEnvelope(b.raw.read(`${box(bob, "new")}/${name}`))._unsafeUnwrap()).toEqual(mail);
      },
    );

    it("creates a closed session's boxes (0700) so its mail waits on disk", () => {
      store.deliver(envelope("m1"), sentAtMs, { durable: false });
      for (const sub of ["", "tmp", "new", "cur", "sent"]) expect(b.raw.mode(box(bob, sub))).toBe(0o700);
    });

    it("creates the temp file exclusively: a file already there makes deliver fail and stays untouched", () => {
      store.openBox(bob);
      const tmpPath = `${box(bob, "tmp")}/${envelopeFileName(sentAtMs, "m1")}`;
      b.raw.write(tmpPath, "someone else's");
      const failed = store.deliver(envelope("m1"), sentAtMs, { durable: true })._unsafeUnwrapErr();
      expect(failed).toMatchObject({ kind: "io", op: "open", code: "EEXIST", path: tmpPath });
      expect(b.raw.read(tmpPath)).toBe("someone else's");
      expect(b.raw.list(box(bob, "new"))).toEqual([]);
    });

    it("removes its temp file when the rename fails", () => {
      store.openBox(bob);
      const name = envelopeFileName(sentAtMs, "m1");
      b.raw.mkdir(`${box(bob, "new")}/${name}/occupied`);
      const failed = store.deliver(envelope("m1"), sentAtMs, { durable: false })._unsafeUnwrapErr();
      expect(failed).toMatchObject({ kind: "io", op: "rename" });
      expect(b.raw.list(box(bob, "tmp"))).toEqual([]);
    });

    it("throws on an invalid envelope (a bug) and writes nothing", () => {
      expect(() => store.deliver(envelope("m1", { status: "done" }), sentAtMs, { durable: false })).toThrow();
      expect(b.raw.exists(box(bob))).toBe(false);
    });

    it("keeps the sender's copy in its sent/ under the delivered name, and findSentCopies finds it by id", () => {
      const mail = envelope("m1");
      const kept = store.keepSent(mail, sentAtMs)._unsafeUnwrap();
      const name = envelopeFileName(sentAtMs, "m1");
      expect(kept.path).toBe(`${box(alice, "sent")}/${name}`);
      expect(b.raw.list(box(alice, "tmp"))).toEqual([]);
      expect(b.raw.mode(kept.path)).toBe(0o600);
      const found = store.findSentCopies(alice, ["m1"])._unsafeUnwrap();
      expect(found).toEqual(new Map([["m1", { path: kept.path, envelope: mail }]]));
    });

    it("findSentCopies: a bare <id>.json holding that id counts, a longer id sharing a suffix does not, unknown ids and folders find nothing", () => {
      store.keepSent(envelope("xm1"), sentAtMs);
      expect(store.findSentCopies(alice, ["m1"])._unsafeUnwrap().size).toBe(0);
      b.raw.write(`${box(alice, "sent")}/m2.json`, encodeEnvelope(envelope("m2")));
      expect(store.findSentCopies(alice, ["m2"])._unsafeUnwrap().get("m2")).toEqual({
        path: `${box(alice, "sent")}/m2.json`,
        envelope: envelope("m2"),
      });
      expect(store.findSentCopies(carol, ["m1"])._unsafeUnwrap().size).toBe(0);
    });
  });

  describe("inbox: listNew, claim, readCur", () => {
    const newPath = (name: string) => `${box(bob, "new")}/${name}`;
    const curPath = (name: string) => `${box(bob, "cur")}/${name}`;
    beforeEach(() => {
      store.openBox(bob);
    });

    it("lists new/ sorted by name, dot-files apart in hidden", () => {
      store.deliver(envelope("late"), sentAtMs + 5, { durable: false });
      store.deliver(envelope("early"), sentAtMs, { durable: false });
      b.raw.write(newPath(".partial"), "");
      b.raw.write(newPath("000000000000001-z.json"), "{}");
      expect(store.listNew(bob)._unsafeUnwrap()).toEqual({
        names: ["000000000000001-z.json", envelopeFileName(sentAtMs, "early"), envelopeFileName(sentAtMs + 5, "late")],
        hidden: [".partial"],
        hiddenCount: 1,
        truncated: false,
      });
    });

    it("claims once: the rename into cur/ wins, a second claim finds it gone", () => {
      const mail = envelope("m1");
      const path = store.deliver(mail, sentAtMs, { durable: false })._unsafeUnwrap().path;
      const name = envelopeFileName(sentAtMs, "m1");
      const first = store.claim(bob, name)._unsafeUnwrap();
      // The store decodes what it claims: the envelope, never its text.
      expect(first).toEqual({ kind: "claimed", name, path: curPath(name), envelope: mail });
      expect(first.kind === "claimed" && decodeEnvelope(b.raw.read(curPath(name)))._unsafeUnwrap()).toEqual(mail);
      expect(b.raw.exists(path)).toBe(false);
      expect(store.claim(bob, name)._unsafeUnwrap()).toEqual({ kind: "gone", name });
    });

    it("sets aside a symlink in new/ as a link: moved to cur/, its target outside the root untouched", () => {
      const target = `${b.outside}/secret.json`;
      b.raw.write(target, JSON.stringify(envelope("secret")));
      b.raw.symlink(target, newPath("000000000000001-link.json"));
      const outcome = store.claim(bob, "000000000000001-link.json")._unsafeUnwrap();
      expect(outcome).toEqual({
        kind: "set-aside",
        name: "000000000000001-link.json",
        path: curPath("000000000000001-link.json"),
        reason: "symlink",
      });
      expect(b.raw.isLink(curPath("000000000000001-link.json"))).toBe(true);
      expect(b.raw.read(target)).toBe(JSON.stringify(envelope("secret")));
      expect(b.raw.list(b.outside)).toEqual(["secret.json"]);
    });

    it("sets aside a folder in new/ as not-a-file", () => {
      b.raw.mkdir(newPath("000000000000001-dir.json"));
      const outcome = store.claim(bob, "000000000000001-dir.json")._unsafeUnwrap();
      expect(outcome).toMatchObject({ kind: "set-aside", reason: "not-a-file" });
    });

    it("reads a file of exactly envelopeFileBytesMax bytes and sets aside one byte more as too-big", () => {
      b.raw.write(newPath("a.json"), envelopeOfBytes(envelopeFileBytesMax));
      b.raw.write(newPath("b.json"), envelopeOfBytes(envelopeFileBytesMax + 1));
      const fits = store.claim(bob, "a.json")._unsafeUnwrap();
      expect(fits.kind === "claimed" && encodeEnvelope(fits.envelope).length).toBe(envelopeFileBytesMax);
      expect(store.claim(bob, "b.json")._unsafeUnwrap()).toMatchObject({ kind: "set-aside", reason: "too-big" });
    });

    it("reads each entry whole and alone, whatever was read before: long then short, past the shared read buffer and back", () => {
      // One buffer serves every read of a small entry: no read may see another's bytes.
      const texts = [
        "y".repeat(300),
        "é",
        "z".repeat(200 * 1024),
        "",
        "w".repeat(70),
        "v".repeat(64 * 1024 - 1),
        "u".repeat(64 * 1024),
        "t",
      ];
      for (const [i, text] of texts.entries()) b.raw.write(newPath(`00000000000000${i}-r.json`), text);
      // The store's reader, entry after entry (the store decodes what it reads: these are not envelopes).
      const read = texts.map((_, i) =>
        readOwnEntry(b.fs, newPath(`00000000000000${i}-r.json`), envelopeFileBytesMax, b.uid)._unsafeUnwrap(),
      );
      expect(read.map((outcome) => outcome.kind === "text" && outcome.text)).toEqual(texts);
    });

    it("fails as a value when a folder in cur/ holds the name, leaving the mail in new/", () => {
      b.raw.write(newPath("a.json"), "{}");
      b.raw.mkdir(`${curPath("a.json")}/inside`);
      expect(store.claim(bob, "a.json")._unsafeUnwrapErr()).toMatchObject({ kind: "io", op: "rename" });
      expect(b.raw.read(newPath("a.json"))).toBe("{}");
    });

    it("recreates a removed cur/ rather than reporting the mail gone", () => {
      b.raw.write(newPath("a.json"), encodeEnvelope(envelope("a")));
      b.raw.rmTree(box(bob, "cur"));
      expect(store.claim(bob, "a.json")._unsafeUnwrap()).toMatchObject({ kind: "claimed", envelope: envelope("a") });
      expect(b.raw.mode(box(bob, "cur"))).toBe(0o700);
    });

    it("throws on a name that is a path or a dot-file (a caller's bug)", () => {
      expect(() => store.claim(bob, "../escape.json")).toThrow();
      expect(() => store.readCur(bob, ".hidden")).toThrow();
    });

    it("readCur reads an entry already in cur/ under the same rules, gone when missing", () => {
      b.raw.write(curPath("a.json"), encodeEnvelope(envelope("a")));
      b.raw.write(curPath("d.json"), "{}");
      b.raw.symlink(`${b.outside}/none`, curPath("b.json"));
      expect(store.readCur(bob, "a.json")._unsafeUnwrap()).toEqual({
        kind: "claimed",
        name: "a.json",
        path: curPath("a.json"),
        envelope: envelope("a"),
      });
      expect(store.readCur(bob, "b.json")._unsafeUnwrap()).toMatchObject({ kind: "set-aside", reason: "symlink" });
      expect(store.readCur(bob, "c.json")._unsafeUnwrap()).toEqual({ kind: "gone", name: "c.json" });
      // Read whole but not an envelope: named as such, with the reason, never as text to decode.
      expect(store.readCur(bob, "d.json")._unsafeUnwrap()).toMatchObject({
        kind: "invalid",
        name: "d.json",
        path: curPath("d.json"),
        error: { kind: "bad-shape" },
      });
    });

    it("keeps a claim journal: round trip, rewritten in place (an empty one stays as []); missing reads as empty, malformed as damaged", () => {
      const names = () => store.readClaimJournal(bob)._unsafeUnwrap();
      expect(names()).toEqual({ names: [], damaged: undefined });
      expect(store.writeClaimJournal(bob, ["a.json", "b.json"]).isOk()).toBe(true);
      expect(names()).toEqual({ names: ["a.json", "b.json"], damaged: undefined });
      expect(b.raw.mode(`${box(bob)}/claiming.json`)).toBe(0o600);
      expect(b.raw.list(box(bob, "tmp"))).toEqual([]);
      expect(store.writeClaimJournal(bob, []).isOk()).toBe(true);
      expect(names()).toEqual({ names: [], damaged: undefined });
      expect(b.raw.list(box(bob, "tmp"))).toEqual([]);
      b.raw.write(`${box(bob)}/claiming.json`, "[not json");
      expect(names()).toEqual({ names: [], damaged: "not JSON" });
      b.raw.write(`${box(bob)}/claiming.json`, JSON.stringify({ names: ["a.json"] }));
      expect(names()).toEqual({ names: [], damaged: "not a list" });
      b.raw.write(`${box(bob)}/claiming.json`, JSON.stringify(["ok.json", "../x", ".dot", 5, "a/b"]));
      expect(names()).toEqual({ names: ["ok.json"], damaged: undefined });
      expect(store.readClaimJournal(carol)._unsafeUnwrap()).toEqual({ names: [], damaged: undefined });
    });

    it("never writes the claim journal through a hard link to a file outside the mail root", () => {
      store.openBox(bob)._unsafeUnwrap();
      const outsideFile = `${b.outside}/precious.txt`;
      b.raw.write(outsideFile, "keep me");
      b.raw.link(outsideFile, `${box(bob)}/claiming.json`);
      expect(store.writeClaimJournal(bob, ["a.json"]).isOk()).toBe(true);
      expect(b.raw.read(outsideFile)).toBe("keep me");
      expect(store.readClaimJournal(bob)._unsafeUnwrap().names).toEqual(["a.json"]);
    });

    it("keeps the journal whole across the page bound: long, then short, then past a page and back, non-ASCII names too", () => {
      const journalNames = () => store.readClaimJournal(bob)._unsafeUnwrap();
      const many = (n: number, tag: string) =>
        Array.from({ length: n }, (_, i) => `000000000000${String(i).padStart(3, "0")}-${tag}.json`);
      // 150 names of about 30 bytes are past one page; 2 of them are far under it.
      const lists = [many(2, "é"), many(150, "ü"), many(2, "a"), many(60, "ö"), ["x.json"], [], many(150, "b")];
      for (const names of lists) {
        expect(store.writeClaimJournal(bob, names).isOk()).toBe(true);
        expect(journalNames()).toEqual({ names, damaged: undefined });
      }
      expect(b.raw.list(box(bob, "tmp"))).toEqual([]);
    });

    it("writes the journal that is there now: one removed, replaced or hard-linked since the last write is never written through", () => {
      const journal = `${box(bob)}/claiming.json`;
      const journalNames = () => store.readClaimJournal(bob)._unsafeUnwrap().names;
      expect(store.writeClaimJournal(bob, ["a.json"]).isOk()).toBe(true);
      b.raw.rmTree(journal);
      expect(store.writeClaimJournal(bob, ["b.json"]).isOk()).toBe(true);
      expect(journalNames()).toEqual(["b.json"]);
      b.raw.write(`${box(bob, "tmp")}/other.json`, JSON.stringify(["other.json"]));
      b.raw.rename(`${box(bob, "tmp")}/other.json`, journal);
      expect(store.writeClaimJournal(bob, ["c.json"]).isOk()).toBe(true);
      expect(journalNames()).toEqual(["c.json"]);
      const outsideCopy = `${b.outside}/copy.json`;
      b.raw.link(journal, outsideCopy);
      expect(store.writeClaimJournal(bob, ["d.json"]).isOk()).toBe(true);
      expect(JSON.parse(b.raw.read(outsideCopy))).toEqual(["c.json"]);
      expect(journalNames()).toEqual(["d.json"]);
      // Released (at shutdown), the journal is opened again by the next write.
      store.release(bob);
      expect(store.writeClaimJournal(bob, ["e.json"]).isOk()).toBe(true);
      expect(journalNames()).toEqual(["e.json"]);
    });

    it("sweeps tmp/ files older than the cutoff only: not fresh ones, folders or links", () => {
      // Whole seconds: utimes rounds fractions on real filesystems, and the edge case must be exact.
      const nowMs = Math.floor(Date.now() / 1000) * 1000;
      const tmp = (name: string) => `${box(bob, "tmp")}/${name}`;
      for (const name of ["old", "fresh", "edge"]) b.raw.write(tmp(name), name);
      b.raw.mkdir(tmp("old-dir"));
      b.raw.symlink(`${b.outside}/target`, tmp("old-link"));
      b.raw.write(`${b.outside}/target`, "kept");
      b.raw.touch(tmp("old"), nowMs - 3_601_000);
      b.raw.touch(tmp("edge"), nowMs - 3_600_000);
      b.raw.touch(tmp("old-dir"), nowMs - 7_200_000);
      expect(store.sweepTmp(bob, nowMs, 3_600_000)._unsafeUnwrap()).toBe(1);
      expect(b.raw.list(box(bob, "tmp"))).toEqual(["edge", "fresh", "old-dir", "old-link"]);
      expect(b.raw.read(`${b.outside}/target`)).toBe("kept");
    });

    it("sweeps at most tmpSweepMax files per call", () => {
      const nowMs = Date.now();
      for (let i = 0; i < tmpSweepMax + 2; i++) {
        const path = `${box(bob, "tmp")}/f${i}`;
        b.raw.write(path, "");
        b.raw.touch(path, nowMs - 10_000);
      }
      expect(store.sweepTmp(bob, nowMs, 1_000)._unsafeUnwrap()).toBe(tmpSweepMax);
      expect(store.sweepTmp(bob, nowMs, 1_000)._unsafeUnwrap()).toBe(2);
    });
  });
});
