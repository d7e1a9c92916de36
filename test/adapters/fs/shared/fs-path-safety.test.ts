// The mail root against other users, on node fs and memfs: every folder and link from `/` to the
// root is judged (StrictModes), the root and its folders must be this user's, and a root swapped
// after start is told apart. Another user is a uid nobody has (chown needs root on node fs; memfs
// lets anyone chown, and its user is uid 0, so on memfs every store here is a session run as root).
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../../../src/adapters/fs/mail/fs-mail-store.js";
import { checkRootPath } from "../../../../src/adapters/fs/shared/fs-path-safety.js";
import type { MailStore } from "../../../../src/ports/mail/mail-store.js";
import { type Backend, backends, bob, envelope, sentAtMs } from "../backends.js";

const stranger = 54_321;
const isRoot = process.getuid?.() === 0;

describe.each(backends)("mail root path safety on $name", ({ name, make }) => {
  const canChown = name === "memfs" || isRoot;
  const chownReason = canChown ? "" : " (skipped: node fs needs root to chown)";
  let b: Backend;
  /** A folder beside the root's: the tests build the way to a root inside it. */
  let base: string;
  const storeAt = (root: string): MailStore => createFsMailStore({ fs: b.fs, root, uid: b.uid });
  const folder = (path: string, mode: number) => {
    b.raw.mkdir(path);
    b.raw.chmod(path, mode);
    return path;
  };

  beforeEach(() => {
    b = make();
    base = folder(`${b.outside}/ways`, 0o755);
  });
  afterEach(() => b.cleanup());

  describe("folders above the root", () => {
    it("refuses a root below a folder others may write, naming it and its mode, and makes nothing there", () => {
      const open = folder(`${base}/open`, 0o777);
      const refused = storeAt(`${open}/state/pi-session-mail`).openRoot();
      expect(refused._unsafeUnwrapErr()).toEqual({
        kind: "open-ancestor",
        path: open,
        mode: 0o777,
        uid: b.uid,
        yours: true,
      });
      expect(b.raw.exists(`${open}/state`)).toBe(false);
    });

    it("refuses a root below a folder its group may write (chmod go-w, not only o-w)", () => {
      const shared = folder(`${base}/shared`, 0o770);
      const refused = storeAt(`${shared}/pi-session-mail`).openRoot()._unsafeUnwrapErr();
      expect(refused).toMatchObject({ kind: "open-ancestor", path: shared, mode: 0o770 });
    });

    it.skipIf(!canChown)(
      `refuses a root below a folder another user owns, even one only they may write${chownReason}`,
      () => {
        const theirs = folder(`${base}/theirs`, 0o755);
        folder(`${theirs}/pi-session-mail`, 0o700);
        b.raw.chown(theirs, stranger);
        const refused = storeAt(`${theirs}/pi-session-mail`).openRoot();
        expect(refused._unsafeUnwrapErr()).toEqual({
          kind: "foreign-owner",
          path: theirs,
          uid: stranger,
          place: "ancestor",
        });
      },
    );

    it.skipIf(!canChown)(
      `accepts a root-owned sticky folder above the root (like /tmp), but not the same folder without the sticky bit${chownReason}`,
      () => {
        // The root is judged for a user who is not root: the sticky folder is root's, the rest its own.
        const you = 4_242;
        const tmp = folder(`${base}/tmp`, 0o1777);
        b.raw.chown(tmp, 0);
        const mine = folder(`${tmp}/mine`, 0o700);
        b.raw.chown(mine, you);
        expect(checkRootPath(b.fs, mine, you).isOk()).toBe(true);
        b.raw.chmod(tmp, 0o777);
        expect(checkRootPath(b.fs, mine, you)._unsafeUnwrapErr()).toEqual({
          kind: "open-ancestor",
          path: tmp,
          mode: 0o777,
          uid: 0,
          yours: false,
        });
      },
    );

    it.skipIf(!canChown)(
      `refuses a sticky folder open to others that is not root's, even this user's own${chownReason}`,
      () => {
        const you = 4_242;
        const sticky = folder(`${base}/sticky`, 0o1777);
        const mine = folder(`${sticky}/mine`, 0o700);
        b.raw.chown(sticky, you);
        b.raw.chown(mine, you);
        expect(checkRootPath(b.fs, mine, you)._unsafeUnwrapErr()).toEqual({
          kind: "open-ancestor",
          path: sticky,
          mode: 0o1777,
          uid: you,
          yours: true,
        });
      },
    );
  });

  describe("links on the way", () => {
    it("refuses a link that sits in a folder others may write, though it leads to a safe folder", () => {
      const safe = folder(`${base}/safe`, 0o755);
      const open = folder(`${base}/open`, 0o777);
      b.raw.symlink(safe, `${open}/link`);
      const refused = storeAt(`${open}/link/pi-session-mail`).openRoot()._unsafeUnwrapErr();
      expect(refused).toMatchObject({ kind: "open-ancestor", path: open });
      expect(b.raw.exists(`${safe}/pi-session-mail`)).toBe(false);
    });

    it("refuses a safe link that leads into a folder others may write, through a second link too", () => {
      const safe = folder(`${base}/safe`, 0o755);
      const open = folder(`${base}/open`, 0o777);
      const inner = folder(`${open}/inner`, 0o755);
      b.raw.symlink(inner, `${safe}/direct`);
      b.raw.symlink("direct", `${safe}/relative`);
      for (const way of ["direct", "relative"]) {
        const refused = storeAt(`${safe}/${way}/pi-session-mail`).openRoot()._unsafeUnwrapErr();
        expect(refused, way).toMatchObject({ kind: "open-ancestor", path: open, mode: 0o777 });
      }
      expect(b.raw.list(inner)).toEqual([]);
    });

    it("follows links between safe folders, relative and with .., and opens the root they lead to", () => {
      const safe = folder(`${base}/safe`, 0o755);
      const state = folder(`${base}/state`, 0o755);
      b.raw.symlink("../state", `${safe}/up`);
      const store = storeAt(`${safe}/up/pi-session-mail`);
      expect(store.openRoot().isOk()).toBe(true);
      expect(b.raw.mode(`${state}/pi-session-mail`)).toBe(0o700);
      expect(store.checkRoot().isOk()).toBe(true);
    });

    it.skipIf(!canChown)(`refuses a link another user owns, though its folder is safe${chownReason}`, () => {
      const safe = folder(`${base}/safe`, 0o755);
      const state = folder(`${base}/state`, 0o755);
      b.raw.symlink(state, `${safe}/theirs`);
      b.raw.chown(`${safe}/theirs`, stranger);
      const refused = storeAt(`${safe}/theirs/pi-session-mail`).openRoot();
      expect(refused._unsafeUnwrapErr()).toEqual({
        kind: "foreign-owner",
        path: `${safe}/theirs`,
        uid: stranger,
        place: "link",
      });
    });

    it.skipIf(!canChown)(`refuses a root that is a link another user owns, naming its owner${chownReason}`, () => {
      const safe = folder(`${base}/safe`, 0o755);
      const state = folder(`${base}/state`, 0o755);
      b.raw.symlink(state, `${safe}/mail`);
      b.raw.chown(`${safe}/mail`, stranger);
      const refused = storeAt(`${safe}/mail`).openRoot();
      expect(refused._unsafeUnwrapErr()).toEqual({
        kind: "foreign-owner",
        path: `${safe}/mail`,
        uid: stranger,
        place: "root-link",
      });
      expect(b.raw.mode(state)).toBe(0o755);
    });

    it("refuses a loop of links as ELOOP instead of walking for ever", () => {
      const safe = folder(`${base}/safe`, 0o755);
      b.raw.symlink("b", `${safe}/a`);
      b.raw.symlink("a", `${safe}/b`);
      const refused = storeAt(`${safe}/a/pi-session-mail`).openRoot()._unsafeUnwrapErr();
      expect(refused).toMatchObject({ kind: "io", code: "ELOOP" });
    });
  });

  describe("the root and what is in it (leftovers of a time the root was open)", () => {
    it.skipIf(!canChown)(
      `refuses a root another user owns and leaves its mode alone (never chmods it)${chownReason}`,
      () => {
        const root = folder(`${base}/pi-session-mail`, 0o777);
        b.raw.chown(root, stranger);
        const refused = storeAt(root).openRoot();
        expect(refused._unsafeUnwrapErr()).toEqual({
          kind: "foreign-owner",
          path: root,
          uid: stranger,
          place: "mail-folder",
        });
        expect(b.raw.mode(root)).toBe(0o777);
      },
    );

    it.skipIf(!canChown)(`refuses running/ another user left in the root${chownReason}`, () => {
      const root = folder(`${base}/pi-session-mail`, 0o700);
      const running = folder(`${root}/running`, 0o777);
      b.raw.chown(running, stranger);
      const store = storeAt(root);
      expect(store.openRoot()._unsafeUnwrapErr()).toEqual({
        kind: "foreign-owner",
        path: running,
        uid: stranger,
        place: "mail-folder",
      });
      expect(store.writeRunning(bob, "{}")._unsafeUnwrapErr()).toMatchObject({ kind: "foreign-owner", path: running });
      expect(b.raw.list(running)).toEqual([]);
    });

    it.skipIf(!canChown)(
      `refuses this session's own address folder, or a box in it, another user left, never calling it open to others${chownReason}`,
      () => {
        const root = `${base}/pi-session-mail`;
        const store = storeAt(root);
        expect(store.openRoot().isOk()).toBe(true);
        expect(store.openBox(bob).isOk()).toBe(true);
        b.raw.chmod(`${root}/${bob}`, 0o777);
        b.raw.chown(`${root}/${bob}`, stranger);
        const refused = store.openBox(bob)._unsafeUnwrapErr();
        expect(refused).toEqual({ kind: "foreign-owner", path: `${root}/${bob}`, uid: stranger, place: "mail-folder" });
        expect(b.raw.mode(`${root}/${bob}`)).toBe(0o777);
        b.raw.chown(`${root}/${bob}`, b.uid);
        // Searchable, as memfs checks permissions even for uid 0 and the test lists it below.
        b.raw.chmod(`${root}/${bob}/new`, 0o755);
        b.raw.chown(`${root}/${bob}/new`, stranger);
        expect(store.openBox(bob)._unsafeUnwrapErr()).toMatchObject({
          kind: "foreign-owner",
          path: `${root}/${bob}/new`,
        });
        expect(store.listNew(bob)._unsafeUnwrapErr()).toMatchObject({
          kind: "foreign-owner",
          path: `${root}/${bob}/new`,
        });
        expect(store.deliver(envelope("m1"), sentAtMs, { durable: false })._unsafeUnwrapErr().kind).toBe(
          "foreign-owner",
        );
        expect(b.raw.list(`${root}/${bob}/new`)).toEqual([]);
      },
    );

    it.skipIf(!canChown)(
      `sets aside a mail file another user owns, unread, readable or not, and reads their running record as absent${chownReason}`,
      () => {
        const root = `${base}/pi-session-mail`;
        const store = storeAt(root);
        store.openRoot()._unsafeUnwrap();
        store.openBox(bob)._unsafeUnwrap();
        const { path } = store.deliver(envelope("m1"), sentAtMs, { durable: false })._unsafeUnwrap();
        // Readable by others, as memfs checks permissions even for uid 0.
        b.raw.chmod(path, 0o644);
        b.raw.chown(path, stranger);
        const name = path.slice(path.lastIndexOf("/") + 1);
        expect(store.claim(bob, name)._unsafeUnwrap()).toEqual({
          kind: "set-aside",
          name,
          path: `${root}/${bob}/cur/${name}`,
          reason: "foreign-owner",
        });
        // Unreadable to this user too (0600, another owner): set aside, never an error retried for ever.
        const second = store.deliver(envelope("m2"), sentAtMs, { durable: false })._unsafeUnwrap().path;
        b.raw.chown(second, stranger);
        const secondName = second.slice(second.lastIndexOf("/") + 1);
        expect(store.claim(bob, secondName)._unsafeUnwrap()).toMatchObject({
          kind: "set-aside",
          reason: "foreign-owner",
        });
        store.writeRunning(bob, '{"address":"x"}')._unsafeUnwrap();
        b.raw.chmod(`${root}/running/${bob}.json`, 0o644);
        b.raw.chown(`${root}/running/${bob}.json`, stranger);
        expect(store.readRunning(bob)._unsafeUnwrap()).toBeUndefined();
        expect(store.listRunning()._unsafeUnwrap()).toEqual([]);
      },
    );
  });

  describe("a session running as root", () => {
    const rootSession = name === "memfs" || isRoot;
    it.skipIf(!rootSession)(
      `accepts no folder another user owns, though as root it could write there: a peer's address folder, running/${rootSession ? "" : " (skipped: needs root)"}`,
      () => {
        expect(b.uid).toBe(0);
        const root = `${base}/pi-session-mail`;
        const store = storeAt(root);
        store.openRoot()._unsafeUnwrap();
        const peer = folder(`${root}/${bob}`, 0o755);
        b.raw.chown(peer, stranger);
        const refused = store.deliver(envelope("m1"), sentAtMs, { durable: true });
        expect(refused._unsafeUnwrapErr()).toEqual({
          kind: "foreign-owner",
          path: peer,
          uid: stranger,
          place: "mail-folder",
        });
        expect(b.raw.list(peer)).toEqual([]);
        const running = folder(`${root}/running`, 0o755);
        b.raw.chown(running, stranger);
        expect(store.writeRunning(bob, "{}")._unsafeUnwrapErr()).toMatchObject({
          kind: "foreign-owner",
          path: running,
        });
        expect(b.raw.list(running)).toEqual([]);
      },
    );
  });

  describe("checkRoot: the root is still the folder openRoot opened", () => {
    it("fails once the root was moved away and another put in its place, or removed", () => {
      const root = `${base}/pi-session-mail`;
      const store = storeAt(root);
      store.openRoot()._unsafeUnwrap();
      expect(store.checkRoot().isOk()).toBe(true);
      b.raw.rename(root, `${root}.old`);
      expect(store.checkRoot()._unsafeUnwrapErr()).toEqual({ kind: "root-replaced", path: root, uid: undefined });
      folder(root, 0o700);
      expect(store.checkRoot()._unsafeUnwrapErr()).toEqual({ kind: "root-replaced", path: root, uid: b.uid });
      b.raw.rmTree(root);
      b.raw.symlink(`${root}.old`, root);
      expect(store.checkRoot()._unsafeUnwrapErr()).toMatchObject({ kind: "root-replaced", path: root });
    });

    it("fails once a link above the root leads elsewhere, though a folder of that name is there", () => {
      const first = folder(`${base}/first`, 0o755);
      const second = folder(`${base}/second`, 0o755);
      folder(`${second}/pi-session-mail`, 0o700);
      b.raw.symlink(first, `${base}/state`);
      const store = storeAt(`${base}/state/pi-session-mail`);
      store.openRoot()._unsafeUnwrap();
      b.raw.unlink(`${base}/state`);
      b.raw.symlink(second, `${base}/state`);
      expect(store.checkRoot()._unsafeUnwrapErr()).toMatchObject({ kind: "root-replaced" });
    });

    it.skipIf(!canChown)(`fails once the root was given to another user${chownReason}`, () => {
      const root = `${base}/pi-session-mail`;
      const store = storeAt(root);
      store.openRoot()._unsafeUnwrap();
      b.raw.chown(root, stranger);
      expect(store.checkRoot()._unsafeUnwrapErr()).toEqual({
        kind: "foreign-owner",
        path: root,
        uid: stranger,
        place: "mail-folder",
      });
    });
  });
});
