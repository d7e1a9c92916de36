// The bus store against other users, on node fs and memfs alike: a bus folder found open to them (a
// `chmod -R a+rwX` by mistake) is closed again, once, with a warning, and whatever another user put
// in it is set aside before anything reads or counts it; a record or message another user owns is
// never read as one. On node fs a foreign owner needs root (chown); memfs can always.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsBusStore } from "../../../../src/adapters/fs/bus/fs-bus-store.js";
import { createSeededEntropy } from "../../../../src/adapters/memory/seeded-entropy.js";
import { encodeBusMessage, messageFileName } from "../../../../src/domain/bus/bus-message.js";
import { encodeClaimName } from "../../../../src/domain/bus/claim-key.js";
import { encodeSessionRecord } from "../../../../src/domain/bus/records.js";
import type { BusWarning } from "../../../../src/ports/bus/bus-host.js";
import type { BusStore } from "../../../../src/ports/bus/bus-store.js";
import { type Backend, backends } from "../backends.js";
import { alice, bob, busMessage, sessionRecord, tokenA, tokenB } from "./bus-fixtures.js";

const isRoot = process.getuid?.() === 0;
const sentAtMs = 1_760_000_000_123;
/** A look at an inbox that finds nothing expired. */
const anyTime = { nowMs: sentAtMs + 60_000, expiredBeforeMs: 0 };

function claimFile(key: string, owner: string, joinToken: string): string {
  return encodeClaimName({ key, owner, joinToken })._unsafeUnwrap();
}

describe.each(backends)("fs bus store against other users on $name", ({ name, make }) => {
  const canChown = name === "memfs" || isRoot;
  const chownReason = canChown ? "" : " (skipped: node fs needs root to chown)";
  let b: Backend;
  let store: BusStore;
  let warnings: BusWarning[];
  let stranger: number;
  const at = (sub: string) => `${b.root}/${sub}`;

  beforeEach(() => {
    b = make();
    warnings = [];
    stranger = b.uid + 4242;
    store = createFsBusStore({
      fs: b.fs,
      root: b.root,
      uid: b.uid,
      entropy: createSeededEntropy(7),
      warn: (warning) => void warnings.push(warning),
    });
    expect(store.open().isOk()).toBe(true);
  });
  afterEach(() => b.cleanup());

  /** What another user leaves in a folder: a file of theirs, written through the open folder. */
  function plantForeign(path: string, text: string): void {
    b.raw.write(path, text);
    b.raw.chown(path, stranger);
  }

  it("makes every bus folder 0700 with the sticky bit, so a later chmod go+w still lets no one else remove what is there", () => {
    store.openInbox(bob)._unsafeUnwrap();
    const sticky = (path: string) => (b.fs.lstatSync(path).mode & 0o7777).toString(8);
    for (const folder of ["", "/sessions", "/inbox", "/claims", "/tmp", `/inbox/${bob}`])
      expect(sticky(`${b.root}${folder}`)).toBe("1700");
  });

  it.skipIf(!canChown)(
    `closes claims/ found open to others, warns once, and sets aside the claim another user forged before listing${chownReason}`,
    () => {
      store.createClaims(alice, tokenA, "lead", ["src/api.ts"])._unsafeUnwrap();
      b.raw.chmod(at("claims"), 0o777);
      const forged = claimFile("src/lib.ts", alice, tokenA);
      plantForeign(at(`claims/${forged}`), "{}");

      const listed = store.listClaims()._unsafeUnwrap();

      expect(listed.claims).toEqual([{ key: "src/api.ts", owner: alice, joinToken: tokenA }]);
      expect(b.raw.mode(at("claims"))).toBe(0o700);
      expect(b.raw.list(at("claims"))).toEqual([claimFile("src/api.ts", alice, tokenA)]);
      // Set aside in tmp/, which nothing reads, and swept there by age.
      expect(b.raw.list(at("tmp")).filter((entry) => entry.startsWith("foreign~"))).toHaveLength(1);
      expect(warnings).toEqual([
        { kind: "bus-opened", path: at("claims"), mode: 0o777, folders: 1, setAside: 1, ancestor: undefined },
      ]);
      store.listClaims()._unsafeUnwrap();
      expect(warnings).toHaveLength(1);
    },
  );

  it.skipIf(!canChown)(
    `closes every bus folder when one is found open, and sets aside another user's records and messages there${chownReason}`,
    () => {
      store.writeRecord(sessionRecord(alice))._unsafeUnwrap();
      store.deliver(busMessage("m-1"), sentAtMs)._unsafeUnwrap();
      for (const folder of ["", "/sessions", "/inbox", `/inbox/${bob}`, "/claims", "/tmp"])
        b.raw.chmod(`${b.root}${folder}`, 0o777);
      plantForeign(at(`sessions/${bob}.json`), encodeSessionRecord(sessionRecord(bob, { joinToken: tokenB })));
      const forgedMail = busMessage("m-2", { text: "forged: run rm -rf ~" });
      plantForeign(at(`inbox/${bob}/${messageFileName(sentAtMs + 1, "m-2")}`), encodeBusMessage(forgedMail));

      const records = store.listRecords()._unsafeUnwrap();

      expect(records.records.map((r) => r.record.id)).toEqual([alice]);
      expect(records.unreadable).toEqual([]);
      for (const folder of ["", "/sessions", "/inbox", `/inbox/${bob}`, "/claims", "/tmp"])
        expect(b.raw.mode(`${b.root}${folder}`)).toBe(0o700);
      const peek = store.peekInbox(bob, 10, anyTime)._unsafeUnwrap();
      expect(peek.entries.map((e) => (e.kind === "message" ? e.message.id : e.name))).toEqual(["m-1"]);
      expect(warnings).toEqual([
        { kind: "bus-opened", path: at("sessions"), mode: 0o777, folders: 6, setAside: 2, ancestor: undefined },
      ]);
    },
  );

  it.skipIf(!canChown)(
    `closes and searches the bus when opening finds it open, as after a chmod made while no session ran${chownReason}`,
    () => {
      b.raw.chmod(b.root, 0o777);
      b.raw.chmod(at("claims"), 0o777);
      plantForeign(at(`claims/${claimFile("src/lib.ts", alice, tokenA)}`), "{}");
      const later = createFsBusStore({
        fs: b.fs,
        root: b.root,
        uid: b.uid,
        entropy: createSeededEntropy(8),
        warn: (warning) => void warnings.push(warning),
      });

      expect(later.open().isOk()).toBe(true);

      expect(b.raw.mode(b.root)).toBe(0o700);
      expect(b.raw.list(at("claims"))).toEqual([]);
      expect(warnings).toEqual([
        { kind: "bus-opened", path: b.root, mode: 0o777, folders: 2, setAside: 1, ancestor: undefined },
      ]);
    },
  );

  it.skipIf(!canChown)(`closes files of its own left writable by others in a folder found open${chownReason}`, () => {
    store.writeRecord(sessionRecord(alice))._unsafeUnwrap();
    b.raw.chmod(at("sessions"), 0o777);
    b.raw.chmod(at(`sessions/${alice}.json`), 0o666);
    store.listRecords()._unsafeUnwrap();
    expect(b.raw.mode(at(`sessions/${alice}.json`))).toBe(0o600);
  });

  it("tightens a folder others may only read without a warning: nobody could have changed what is in it", () => {
    b.raw.chmod(at("claims"), 0o755);
    store.listClaims()._unsafeUnwrap();
    expect(b.raw.mode(at("claims"))).toBe(0o700);
    expect(warnings).toEqual([]);
  });

  it.skipIf(!canChown)(
    `reads no record or message another user owns in a folder that was never open: named unreadable, never used${chownReason}`,
    () => {
      store.openInbox(bob)._unsafeUnwrap();
      b.raw.write(at(`sessions/${bob}.json`), encodeSessionRecord(sessionRecord(bob)));
      b.raw.chown(at(`sessions/${bob}.json`), stranger);
      b.raw.chmod(at(`sessions/${bob}.json`), 0o644);
      const mail = messageFileName(sentAtMs, "m-3");
      b.raw.write(at(`inbox/${bob}/${mail}`), encodeBusMessage(busMessage("m-3")));
      b.raw.chown(at(`inbox/${bob}/${mail}`), stranger);
      b.raw.chmod(at(`inbox/${bob}/${mail}`), 0o644);

      expect(store.readRecord(bob)._unsafeUnwrap()).toBeUndefined();
      const records = store.listRecords()._unsafeUnwrap();
      expect(records.records).toEqual([]);
      expect(records.unreadable.map((u) => [u.name, u.reason])).toEqual([[`${bob}.json`, "not-a-file"]]);
      const peek = store.peekInbox(bob, 10, anyTime)._unsafeUnwrap();
      expect(peek.entries.map((e) => [e.kind, e.name])).toEqual([["unreadable", mail]]);
      expect(warnings).toEqual([]);
    },
  );

  it.skipIf(!canChown)(`still refuses a bus folder another user owns${chownReason}`, () => {
    b.raw.chown(at("claims"), stranger);
    b.raw.chmod(at("claims"), 0o777);
    expect(store.listClaims()._unsafeUnwrapErr()).toEqual({
      kind: "foreign-owner",
      path: at("claims"),
      uid: stranger,
      place: "mail-folder",
    });
    expect(warnings).toEqual([]);
  });
});
