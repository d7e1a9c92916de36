// The bus store's contract on node fs and memfs alike: the layout and modes, records, the inbox.
// Claims, the tmp sweep and hostile entries are in fs-bus-claims.contract.test.ts.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { pruneFilesLookedMax, recordBytesMax } from "../../../../src/domain/bus/limits.js";
import type { BusStore } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends } from "../backends.js";
import { alice, anyTime, bob, busMessage, busStore, carol, sessionRecord, tokenA, tokenB } from "./bus-fixtures.js";

const sentAtMs = 1_760_000_000_123;

describe.each(backends)("fs bus store on $name", ({ make }) => {
  let b: Backend;
  let store: BusStore;
  const at = (sub: string) => `${b.root}/${sub}`;

  beforeEach(() => {
    b = make();
    store = busStore(b);
    expect(store.open().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  describe("layout", () => {
    it("makes the bus folder and sessions/, inbox/, claims/, tmp/ with mode 0700, and opens again", () => {
      for (const folder of ["", "/sessions", "/inbox", "/claims", "/tmp"])
        expect(b.raw.mode(`${b.root}${folder}`)).toBe(0o700);
      expect(store.open().isOk()).toBe(true);
    });

    it("tightens a bus folder made open to others back to 0700", () => {
      b.raw.chmod(b.root, 0o755);
      expect(store.open().isOk()).toBe(true);
      expect(b.raw.mode(b.root)).toBe(0o700);
    });

    it("refuses to open when sessions/ is a symlink, and leaves its target alone", () => {
      b.raw.rmTree(at("sessions"));
      b.raw.symlink(b.outside, at("sessions"));
      expect(store.open()._unsafeUnwrapErr()).toEqual({ kind: "not-a-folder", path: at("sessions") });
      expect(b.raw.list(b.outside)).toEqual([]);
    });

    it("names an inbox's folder by the session id, and refuses an id that is not one", () => {
      expect(store.inboxPath(bob)).toBe(at(`inbox/${bob}`));
      expect(() => store.inboxPath("../escape")).toThrow();
    });
  });

  describe("records", () => {
    it("writes a record 0600 at sessions/<id>.json, leaves nothing in tmp/, and reads it back with its mtime", () => {
      const written = sessionRecord(alice);
      expect(store.writeRecord(written).isOk()).toBe(true);
      expect(b.raw.mode(at(`sessions/${alice}.json`))).toBe(0o600);
      expect(b.raw.list(at("tmp"))).toEqual([]);
      b.raw.touch(at(`sessions/${alice}.json`), 1_700_000_000_000);
      expect(store.readRecord(alice)._unsafeUnwrap()).toEqual({ record: written, heartbeatMs: 1_700_000_000_000 });
    });

    it("replaces a record whole on a rewrite", () => {
      store.writeRecord(sessionRecord(alice));
      store.writeRecord(sessionRecord(alice, { label: "integrator", joinToken: tokenB }));
      expect(store.readRecord(alice)._unsafeUnwrap()?.record.label).toBe("integrator");
      expect(b.raw.list(at("sessions"))).toEqual([`${alice}.json`]);
    });

    it("reads a missing record, one of bad JSON and one naming another id as absent", () => {
      expect(store.readRecord(alice)._unsafeUnwrap()).toBeUndefined();
      b.raw.write(at(`sessions/${bob}.json`), "{not json");
      b.raw.write(at(`sessions/${carol}.json`), JSON.stringify(sessionRecord(alice)));
      expect(store.readRecord(bob)._unsafeUnwrap()).toBeUndefined();
      expect(store.readRecord(carol)._unsafeUnwrap()).toBeUndefined();
    });

    it("lists readable records and names every other file with why, skipping dot-files", () => {
      store.writeRecord(sessionRecord(alice));
      b.raw.write(at(`sessions/${bob}.json`), "{not json");
      b.raw.write(at(`sessions/${carol}.json`), JSON.stringify({ ...sessionRecord(carol), pid: "many" }));
      b.raw.write(at("sessions/dddd.json"), JSON.stringify(sessionRecord(alice)));
      b.raw.write(at("sessions/eeee.json"), `${JSON.stringify(sessionRecord("eeee"))}${" ".repeat(recordBytesMax)}`);
      b.raw.write(at("sessions/notes.txt"), "hello");
      b.raw.write(at("sessions/.hidden.json"), "x");
      b.raw.mkdir(at("sessions/ffff.json"));
      b.raw.write(`${b.outside}/forged.json`, JSON.stringify(sessionRecord("gggg")));
      b.raw.symlink(`${b.outside}/forged.json`, at("sessions/gggg.json"));
      const listing = store.listRecords()._unsafeUnwrap();
      expect(listing.records.map((r) => r.record.id)).toEqual([alice]);
      const why = Object.fromEntries(listing.unreadable.map((u) => [u.name, u.reason]));
      expect(why).toEqual({
        [`${bob}.json`]: "not-json",
        [`${carol}.json`]: "wrong-shape",
        "dddd.json": "name-mismatch",
        "eeee.json": "too-big",
        "notes.txt": "name-mismatch",
        "ffff.json": "not-a-file",
        "gggg.json": "not-a-file",
      });
    });

    it("tolerates extra fields and nulls in a record, and keeps only the known ones", () => {
      const stored = { ...sessionRecord(alice), started: null, future: { x: 1 } };
      b.raw.write(at(`sessions/${alice}.json`), JSON.stringify(stored));
      const { started: _, ...expected } = sessionRecord(alice);
      expect(store.readRecord(alice)._unsafeUnwrap()?.record).toEqual(expected);
    });

    it("removes a record only while it carries the token, and counts one already gone as removed", () => {
      store.writeRecord(sessionRecord(alice, { joinToken: tokenB }));
      expect(store.removeRecord(alice, tokenA)._unsafeUnwrap()).toBe(false);
      expect(store.readRecord(alice)._unsafeUnwrap()?.record.joinToken).toBe(tokenB);
      expect(store.removeRecord(alice, tokenB)._unsafeUnwrap()).toBe(true);
      expect(b.raw.exists(at(`sessions/${alice}.json`))).toBe(false);
      expect(store.removeRecord(alice, tokenB)._unsafeUnwrap()).toBe(true);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });

    it("removes a record judged by its heartbeat only while that heartbeat holds: a beat since keeps it", () => {
      store.writeRecord(sessionRecord(alice, { joinToken: tokenA }));
      const judgedMs = store.readRecord(alice)._unsafeUnwrap()!.heartbeatMs;
      // The session beats again (same token, a newer mtime) after the prune judged it expired.
      // Whole seconds: utimes rounds fractions on real file systems.
      const beatMs = Math.ceil(judgedMs / 1000) * 1000 + 5_000;
      b.raw.touch(at(`sessions/${alice}.json`), beatMs);
      expect(store.removeRecord(alice, tokenA, judgedMs)._unsafeUnwrap()).toBe(false);
      expect(store.readRecord(alice)._unsafeUnwrap()?.heartbeatMs).toBe(beatMs);
      expect(store.removeRecord(alice, tokenA, beatMs)._unsafeUnwrap()).toBe(true);
      expect(b.raw.exists(at(`sessions/${alice}.json`))).toBe(false);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });

    it("puts back a record that beat between the heartbeat check and the removal", () => {
      store.writeRecord(sessionRecord(alice, { joinToken: tokenA }));
      const judgedMs = store.readRecord(alice)._unsafeUnwrap()!.heartbeatMs;
      const beatMs = Math.ceil(judgedMs / 1000) * 1000 + 5_000;
      const racing = busStore(b, {
        ...b.fs,
        renameSync(from: string, to: string) {
          // The beat lands just before the remover moves the record aside.
          if (from === at(`sessions/${alice}.json`)) b.raw.touch(from, beatMs);
          b.fs.renameSync(from, to);
        },
      });
      expect(racing.removeRecord(alice, tokenA, judgedMs)._unsafeUnwrap()).toBe(false);
      expect(store.readRecord(alice)._unsafeUnwrap()?.heartbeatMs).toBe(beatMs);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });

    it("beats in place: the record's mtime moves, its file and text stay, and nothing is left in tmp/", () => {
      const own = sessionRecord(alice, { joinToken: tokenA });
      store.writeRecord(own);
      const before = b.raw.read(at(`sessions/${alice}.json`));
      const beatMs = 1_800_000_000_000;
      expect(store.touchRecord(own, beatMs)._unsafeUnwrap()).toEqual({ kind: "touched" });
      expect(store.readRecord(alice)._unsafeUnwrap()?.heartbeatMs).toBe(beatMs);
      expect(b.raw.read(at(`sessions/${alice}.json`))).toBe(before);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });

    it("never makes a record a prune removed: the beat says it is missing", () => {
      const own = sessionRecord(alice, { joinToken: tokenA });
      store.writeRecord(own);
      store.removeRecord(alice, tokenA);
      expect(store.touchRecord(own, 1_800_000_000_000)._unsafeUnwrap()).toEqual({ kind: "missing" });
      expect(b.raw.exists(at(`sessions/${alice}.json`))).toBe(false);
    });

    it("leaves another process's record of the id alone and says whose it is", () => {
      const own = sessionRecord(alice, { joinToken: tokenA });
      const twin = sessionRecord(alice, { joinToken: tokenA, pid: own.pid === undefined ? 7 : own.pid + 1 });
      store.writeRecord(twin);
      const heartbeatMs = store.readRecord(alice)._unsafeUnwrap()!.heartbeatMs;
      expect(store.touchRecord(own, 1_800_000_000_000)._unsafeUnwrap()).toEqual({ kind: "changed", record: twin });
      expect(
        store.touchRecord(sessionRecord(alice, { joinToken: tokenB }), 1_800_000_000_000)._unsafeUnwrap().kind,
      ).toBe("changed");
      expect(store.readRecord(alice)._unsafeUnwrap()?.heartbeatMs).toBe(heartbeatMs);
    });

    it("says a beat that went to a record moved away meanwhile (a prune's tombstone) is missing", () => {
      const own = sessionRecord(alice, { joinToken: tokenA });
      store.writeRecord(own);
      const racing = busStore(b, {
        ...b.fs,
        futimesSync(fd: number, atime: Date, mtime: Date) {
          // A prune moves the record aside between the beat's open and its write.
          b.fs.renameSync(at(`sessions/${alice}.json`), at("tmp/removing~x.json"));
          b.fs.futimesSync(fd, atime, mtime);
        },
      });
      expect(racing.touchRecord(own, 1_800_000_000_000)._unsafeUnwrap()).toEqual({ kind: "missing" });
    });

    it("checks whose a record is: this process's, none, or another process's of the id", () => {
      const own = sessionRecord(alice, { joinToken: tokenA });
      const self = { pid: own.pid ?? 0, started: own.started };
      expect(store.checkRecord(alice, self)._unsafeUnwrap()).toEqual({ kind: "missing" });
      store.writeRecord(own);
      expect(store.checkRecord(alice, self)._unsafeUnwrap()).toEqual({ kind: "own" });
      // Asked again with the file unchanged: still this process's (one lstat).
      expect(store.checkRecord(alice, self)._unsafeUnwrap()).toEqual({ kind: "own" });
      const twin = sessionRecord(alice, { joinToken: tokenA, pid: self.pid + 1 });
      store.writeRecord(twin);
      expect(store.checkRecord(alice, self)._unsafeUnwrap()).toEqual({ kind: "changed", record: twin });
    });

    it("reads a record without a pid (another implementation's), and says a listing was not cut", () => {
      const { pid: _pid, ...rest } = sessionRecord(bob);
      b.raw.write(at(`sessions/${bob}.json`), JSON.stringify(rest));
      const listing = store.listRecords()._unsafeUnwrap();
      expect(listing.records.map((r) => r.record)).toEqual([rest]);
      expect(listing.truncated).toBe(false);
    });

    it("puts back a record a newer join wrote between the token check and the removal", () => {
      store.writeRecord(sessionRecord(alice, { joinToken: tokenA }));
      const racing = busStore(b, {
        ...b.fs,
        renameSync(from: string, to: string) {
          // The newer join lands just before the remover moves the record aside.
          if (from === at(`sessions/${alice}.json`)) store.writeRecord(sessionRecord(alice, { joinToken: tokenB }));
          b.fs.renameSync(from, to);
        },
      });
      expect(racing.removeRecord(alice, tokenA)._unsafeUnwrap()).toBe(false);
      expect(store.readRecord(alice)._unsafeUnwrap()?.record.joinToken).toBe(tokenB);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });
  });

  describe("inbox", () => {
    const fileOf = (id: string) => `${String(sentAtMs).padStart(15, "0")}-${id}.json`;

    it("delivers into inbox/<to>/<15-digit ms>-<id>.json, 0600 in a 0700 folder, with nothing left in tmp/", () => {
      const name = store.deliver(busMessage("m1"), sentAtMs)._unsafeUnwrap();
      expect(name).toBe("001760000000123-m1.json");
      expect(b.raw.list(at(`inbox/${bob}`))).toEqual([name]);
      expect(b.raw.mode(at(`inbox/${bob}`))).toBe(0o700);
      expect(b.raw.mode(at(`inbox/${bob}/${name}`))).toBe(0o600);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });

    it("peeks oldest first by mtime, then by name, and reads only the first `max`", () => {
      for (const id of ["m1", "m2", "m3", "m4"]) store.deliver(busMessage(id), sentAtMs);
      const inbox = at(`inbox/${bob}`);
      b.raw.touch(`${inbox}/${fileOf("m1")}`, 3_000);
      b.raw.touch(`${inbox}/${fileOf("m2")}`, 1_000);
      b.raw.touch(`${inbox}/${fileOf("m3")}`, 2_000);
      b.raw.touch(`${inbox}/${fileOf("m4")}`, 2_000);
      // Unreadable, and last: a peek of 3 never reads it.
      b.raw.write(`${inbox}/${fileOf("m5")}`, "{bad");
      b.raw.touch(`${inbox}/${fileOf("m5")}`, 9_000);
      const peek = store.peekInbox(bob, 3, anyTime)._unsafeUnwrap();
      expect(peek.entries.map((e) => (e.kind === "message" ? e.message.id : e.name))).toEqual(["m2", "m3", "m4"]);
      expect(peek.entries.map((e) => e.arrivedMs)).toEqual([1_000, 2_000, 2_000]);
      expect(peek.files).toBe(5);
    });

    it("counts only regular files: not folders, links or dot-files", () => {
      store.deliver(busMessage("m1"), sentAtMs);
      const inbox = at(`inbox/${bob}`);
      b.raw.mkdir(`${inbox}/folder.json`);
      b.raw.symlink(`${b.outside}/x`, `${inbox}/${fileOf("link")}`);
      b.raw.write(`${inbox}/.hidden`, "x");
      expect(store.countInbox(bob)._unsafeUnwrap()).toEqual({ files: 1, atLeast: false });
      const peek = store.peekInbox(bob, 50, anyTime)._unsafeUnwrap();
      expect(peek.files).toBe(1);
      expect(peek.entries.map((e) => e.name)).toEqual([fileOf("m1")]);
      expect(store.countInbox(carol)._unsafeUnwrap()).toEqual({ files: 0, atLeast: false });
      expect(store.peekInbox(carol, 5, anyTime)._unsafeUnwrap()).toEqual({ entries: [], files: 0 });
    });

    it("names what it cannot read and leaves it on disk: bad JSON, wrong types, a name or recipient that does not match", () => {
      const inbox = at(`inbox/${bob}`);
      store.deliver(busMessage("ok"), sentAtMs);
      b.raw.write(`${inbox}/${fileOf("bad")}`, "{bad");
      b.raw.write(`${inbox}/${fileOf("types")}`, JSON.stringify({ ...busMessage("types"), kind: 7 }));
      b.raw.write(`${inbox}/${fileOf("other")}`, JSON.stringify(busMessage("named-else")));
      b.raw.write(`${inbox}/${fileOf("to")}`, JSON.stringify(busMessage("to", { to: carol })));
      b.raw.write(`${inbox}/stray.txt`, "hello");
      const peek = store.peekInbox(bob, 50, anyTime)._unsafeUnwrap();
      const why = Object.fromEntries(peek.entries.map((e) => [e.name, e.kind === "message" ? "ok" : e.reason]));
      expect(why).toEqual({
        [fileOf("ok")]: "ok",
        [fileOf("bad")]: "not-json",
        [fileOf("types")]: "wrong-shape",
        [fileOf("other")]: "name-mismatch",
        [fileOf("to")]: "name-mismatch",
        "stray.txt": "name-mismatch",
      });
      expect(b.raw.list(inbox)).toHaveLength(6);
    });

    it("consumes exactly the named files and answers with those it removed", () => {
      for (const id of ["m1", "m2", "m3"]) store.deliver(busMessage(id), sentAtMs);
      const removed = store.consume(bob, [fileOf("m1"), fileOf("m3"), fileOf("never")])._unsafeUnwrap();
      expect(removed).toEqual([fileOf("m1"), fileOf("m3")]);
      expect(b.raw.list(at(`inbox/${bob}`))).toEqual([fileOf("m2")]);
      expect(store.consume(carol, [fileOf("m2")])._unsafeUnwrap()).toEqual([]);
    });

    it("prunes files older than the cutoff, a stale link itself (never its target), keeps newer mail, and counts what is left as countInbox does", () => {
      const inbox = at(`inbox/${bob}`);
      store.deliver(busMessage("old"), sentAtMs);
      store.deliver(busMessage("new"), sentAtMs);
      b.raw.touch(`${inbox}/${fileOf("old")}`, 1_000);
      // A link's own mtime is its creation's (now): the cutoff is set past it, the kept mail beyond.
      const cutoffMs = Date.now() + 60_000;
      b.raw.touch(`${inbox}/${fileOf("new")}`, cutoffMs + 60_000);
      b.raw.write(`${b.outside}/target`, "keep");
      b.raw.symlink(`${b.outside}/target`, `${inbox}/link`);
      // The expired message is read before it goes, for its sender to be told; the link is no message.
      const pruned = store.pruneInbox(bob, cutoffMs, true, pruneFilesLookedMax)._unsafeUnwrap();
      expect({ ...pruned, expired: pruned.expired.map((m) => m.id) }).toEqual({
        removed: 2,
        left: { files: 1, atLeast: false },
        looked: 3,
        expired: ["old"],
      });
      expect(b.raw.list(inbox)).toEqual([fileOf("new")]);
      expect(store.countInbox(bob)._unsafeUnwrap()).toEqual({ files: 1, atLeast: false });
      expect(b.raw.read(`${b.outside}/target`)).toBe("keep");
    });

    it("drops an inbox left empty only when asked, and never one that still holds mail", () => {
      store.deliver(busMessage("m1"), sentAtMs);
      expect(store.pruneInbox(bob, 0, true, pruneFilesLookedMax)._unsafeUnwrap()).toEqual({
        removed: 0,
        left: { files: 1, atLeast: false },
        looked: 1,
        expired: [],
      });
      expect(b.raw.exists(at(`inbox/${bob}`))).toBe(true);
      store.consume(bob, [fileOf("m1")]);
      expect(store.pruneInbox(bob, 0, false, pruneFilesLookedMax)._unsafeUnwrap()).toEqual({
        removed: 0,
        left: { files: 0, atLeast: false },
        looked: 0,
        expired: [],
      });
      expect(b.raw.exists(at(`inbox/${bob}`))).toBe(true);
      expect(store.pruneInbox(bob, 0, true, pruneFilesLookedMax)._unsafeUnwrap()).toEqual({
        removed: 0,
        left: { files: 0, atLeast: false },
        looked: 0,
        expired: [],
      });
      expect(b.raw.exists(at(`inbox/${bob}`))).toBe(false);
      expect(b.raw.list(at("tmp"))).toEqual([]);
    });

    it("lists the inboxes on disk: real folders named like a session id", () => {
      store.deliver(busMessage("m1", { to: carol }), sentAtMs);
      store.deliver(busMessage("m2", { to: bob }), sentAtMs);
      b.raw.symlink(b.outside, at(`inbox/${alice}`));
      b.raw.mkdir(at("inbox/.hidden"));
      b.raw.write(at("inbox/file"), "x");
      expect(store.listInboxes()._unsafeUnwrap()).toEqual([bob, carol]);
    });

    it("refuses an inbox folder that is a symlink, for reads and deliveries, and writes nothing through it", () => {
      b.raw.symlink(b.outside, at(`inbox/${bob}`));
      b.raw.write(`${b.outside}/${fileOf("m0")}`, JSON.stringify(busMessage("m0")));
      const refused = { kind: "not-a-folder", path: at(`inbox/${bob}`) };
      expect(store.peekInbox(bob, 5, anyTime)._unsafeUnwrapErr()).toEqual(refused);
      expect(store.countInbox(bob)._unsafeUnwrapErr()).toEqual(refused);
      expect(store.consume(bob, [fileOf("m0")])._unsafeUnwrapErr()).toEqual(refused);
      expect(store.pruneInbox(bob, Number.MAX_SAFE_INTEGER, true, pruneFilesLookedMax)._unsafeUnwrapErr()).toEqual(
        refused,
      );
      expect(store.deliver(busMessage("m1"), sentAtMs)._unsafeUnwrapErr()).toEqual(refused);
      expect(b.raw.list(b.outside)).toEqual([fileOf("m0")]);
    });
  });
});
