// A machine that misbehaves loses no mail: a full disk (a small tmpfs), EMFILE after the claim
// rename (this process's own descriptors used up), a read-only root at start, an address folder
// moved and restored by a backup, a folder where the claim journal belongs, an answer that cannot
// be written at settle. Real files on real file systems; a virtual clock makes each step exact.
import { execFileSync } from "node:child_process";
import {
  closeSync,
  cpSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../src/adapters/fs/shared/fs-like.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import type { Address } from "../../src/domain/mail/address.js";
import { encodeEnvelope, envelopeFileName } from "../../src/domain/mail/envelope.js";
import { claimSliceMax, startRetryMs } from "../../src/domain/mail/limits.js";
import { createFsWorld, type FsWorld, fsPollMs, startFsSession } from "./harness/fs-session.js";
import { newAddress, newEnvelope } from "./harness/mail.js";

const isRoot = process.getuid?.() === 0;
/** Descriptors opened to use up this process's limit; far above any `ulimit -n` seen here. */
const hogFdsMax = 1_100_000;

let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.reverse()) cleanup();
  cleanups = [];
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), "machine-faults-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A tmpfs of `kib` KiB mounted on a fresh folder, unmounted after the test. */
function smallTmpfs(kib: number): string {
  const dir = scratch();
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kib}k,mode=0700`, "tmpfs", dir]);
  cleanups.push(() => execFileSync("umount", ["-l", dir]));
  return dir;
}

/** Writes a file that takes every free block; returns a function that frees them again. */
function fillDisk(dir: string): () => void {
  const path = join(dir, "filler");
  const fd = openSync(path, "w");
  for (const size of [65_536, 4_096, 512, 1]) {
    const chunk = Buffer.alloc(size, 0x78);
    for (let i = 0; i < 1_000_000; i++) {
      try {
        writeSync(fd, chunk);
      } catch {
        break;
      }
    }
  }
  closeSync(fd);
  return () => rmSync(path, { force: true });
}

/** Opens descriptors until the process has none left (EMFILE), runs `during`, and closes them. */
function withoutDescriptors<T>(during: () => T): T {
  const fds: number[] = [];
  try {
    for (let i = 0; i < hogFdsMax; i++) {
      try {
        fds.push(openSync("/dev/null", "r"));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "EMFILE") break;
        throw e;
      }
    }
    return during();
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}

/** Publishes `count` requests from `from` into `to`'s new/ the way a sender does; returns their ids. */
function sendTo(root: string, from: Address, to: Address, count: number): string[] {
  const store = createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const nowMs = Date.now();
    const envelope = newEnvelope({ from, to, kind: "message", body: `mail ${i}` }, nowMs);
    store.deliver(envelope, nowMs, { durable: false })._unsafeUnwrap();
    ids.push(envelope.id);
  }
  return ids;
}

function journalOf(root: string, address: Address): unknown {
  return JSON.parse(readFileSync(join(root, address, "claiming.json"), "utf8"));
}

function startWorld(root: string): FsWorld {
  return createFsWorld(root);
}

describe("a full disk", () => {
  it.skipIf(!isRoot)(
    "never tears the claim journal: mail claimed before the disk filled is shown after a crash, and what came after waits in new/ (needs root to mount a tmpfs)",
    () => {
      const mount = smallTmpfs(1024);
      const root = join(mount, "mail");
      const world = startWorld(root);
      const me = newAddress();
      const peer = newAddress();
      const first = startFsSession(world, me);
      world.tick();
      // 60 claimed and never read: a journal just under one page.
      const before = sendTo(root, peer, me, 60);
      world.advance(fsPollMs);
      expect(first.injectedIds().sort()).toEqual([...before].sort());
      // 40 more, written while there is room, reach new/ by rename once the disk is full.
      const hold = join(mount, "hold");
      mkdirSync(hold);
      const later = sendTo(root, peer, peer, 40);
      for (const name of readdirSync(join(root, peer, "new"))) {
        const text = readFileSync(join(root, peer, "new", name), "utf8").replace(`"to":"${peer}"`, `"to":"${me}"`);
        writeFileSync(join(hold, name), text);
      }
      rmSync(join(root, peer), { recursive: true });
      const freeDisk = fillDisk(mount);
      for (const name of readdirSync(hold)) renameSync(join(hold, name), join(root, me, "new", name));
      world.advance(fsPollMs);
      // The journal would need a second page: it is not written, nothing more is claimed.
      expect(journalOf(root, me)).toHaveLength(60);
      expect(readdirSync(join(root, me, "new"))).toHaveLength(40);
      expect(first.host.notices.map((n) => n.text).join("\n")).toMatch(/claim journal: .*ENOSPC/);
      first.crash();
      freeDisk();
      const second = startFsSession(world, me);
      world.tick();
      world.advance(fsPollMs);
      expect(second.injectedIds().sort()).toEqual([...before, ...later].sort());
    },
  );

  /** A request read by `answerer`, whose run settles with the disk full: the answer is owed. */
  function answerOwedOnFullDisk() {
    const mount = smallTmpfs(512);
    const root = join(mount, "mail");
    const world = startWorld(root);
    const asker = startFsSession(world, newAddress());
    const answerer = startFsSession(world, newAddress());
    world.tick();
    const sent = asker.engine.request(answerer.address, "What is 6*7?", "command")._unsafeUnwrap();
    world.advance(fsPollMs);
    answerer.engine.runStarted();
    expect(answerer.enterAll()).toEqual([sent.envelope.id]);
    const freeDisk = fillDisk(mount);
    answerer.engine.runSettled({ kind: "done", text: "42" });
    const replies = () => asker.host.injected.filter((i) => i.mail.details.kind === "reply");
    return { root, world, asker, answerer, freeDisk, replies };
  }

  it.skipIf(!isRoot)(
    "keeps an answer that could not be written at settle, and writes it once there is room again (needs root to mount a tmpfs)",
    () => {
      const { root, world, asker, answerer, freeDisk, replies } = answerOwedOnFullDisk();
      expect(answerer.host.notices.map((n) => n.text)).toContainEqual(
        expect.stringMatching(/Could not write the answer to .*ENOSPC.*tried again/),
      );
      world.advance(fsPollMs);
      expect(readdirSync(join(root, asker.address, "new"))).toEqual([]);
      freeDisk();
      world.advance(fsPollMs);
      world.advance(fsPollMs);
      expect(replies()).toHaveLength(1);
      expect(replies()[0]?.mail.content).toContain("42");
      expect(answerer.host.notices.at(-1)?.level).toBe("info");
    },
  );

  it.skipIf(!isRoot)(
    "writes an answer still owed when the session shuts down, if there is room by then (needs root to mount a tmpfs)",
    () => {
      const { world, answerer, freeDisk, replies } = answerOwedOnFullDisk();
      freeDisk();
      // No poll came between: only the shutdown can write it now.
      answerer.engine.shutdown();
      world.advance(fsPollMs);
      expect(replies()).toHaveLength(1);
      expect(replies()[0]?.mail.content).toContain("42");
    },
  );
});

describe("EMFILE after the claim rename", () => {
  it("keeps the mail journaled and reads it from cur/ once descriptors are free: at the next poll, or after a crash", () => {
    const root = join(scratch(), "mail");
    const world = startWorld(root);
    const me = newAddress();
    const peer = newAddress();
    const session = startFsSession(world, me, { watch: true });
    world.tick();
    // One claim first, so the journal is kept open and its write needs no descriptor.
    const [warm] = sendTo(root, peer, me, 1);
    world.advance(fsPollMs);
    expect(session.injectedIds()).toEqual([warm]);
    const ids = sendTo(root, peer, me, 2);
    const names = readdirSync(join(root, me, "new")).sort();
    withoutDescriptors(() => {
      for (const name of names) session.hint(name);
    });
    // Claimed into cur/, unread, still journaled.
    expect(readdirSync(join(root, me, "new"))).toEqual([]);
    expect(journalOf(root, me)).toEqual(expect.arrayContaining(names));
    expect(session.injectedIds()).toEqual([warm]);
    expect(session.host.notices.map((n) => n.text).join("\n")).toMatch(/EMFILE.*read again at the next poll/);
    // A crash now, and the restart reads them from cur/.
    session.crash();
    const restarted = startFsSession(world, me, { shown: new Set([warm as string]) });
    world.tick();
    expect(restarted.injectedIds().sort()).toEqual([...ids].sort());
  });

  it("retries a stranded read at the next poll of the same session", () => {
    const root = join(scratch(), "mail");
    const world = startWorld(root);
    const me = newAddress();
    const session = startFsSession(world, me, { watch: true });
    world.tick();
    const [warm] = sendTo(root, newAddress(), me, 1);
    world.advance(fsPollMs);
    const [id] = sendTo(root, newAddress(), me, 1);
    const [name] = readdirSync(join(root, me, "new"));
    withoutDescriptors(() => session.hint(name as string));
    expect(session.injectedIds()).toEqual([warm]);
    world.advance(fsPollMs);
    expect(session.injectedIds()).toEqual([warm, id]);
    expect(journalOf(root, me)).toEqual(expect.arrayContaining([name]));
  });
});

describe("a read-only root at start", () => {
  it.skipIf(!isRoot)(
    "says the mailbox is off and turns it on once the root is writable again (needs root to remount a tmpfs)",
    () => {
      const mount = smallTmpfs(512);
      const root = join(mount, "mail");
      mkdirSync(root, { mode: 0o700 });
      execFileSync("mount", ["-o", "remount,ro", mount]);
      const world = startWorld(root);
      const me = newAddress();
      const session = startFsSession(world, me);
      world.tick();
      expect(session.host.notices).toEqual([
        expect.objectContaining({ level: "error", text: expect.stringMatching(/mailbox is off.*EROFS.*tries again/) }),
      ]);
      expect(session.engine.identity()).toBeUndefined();
      execFileSync("mount", ["-o", "remount,rw", mount]);
      world.advance(startRetryMs);
      expect(session.host.notices.at(-1)).toEqual({ level: "info", text: "The mailbox is on again for this session." });
      expect(session.engine.identity()?.address).toBe(me);
      const ids = sendTo(root, newAddress(), me, 1);
      world.advance(fsPollMs);
      expect(session.injectedIds()).toEqual(ids);
    },
  );
});

describe("an address folder moved and restored by a backup while its session runs", () => {
  it("writes the journal at the folder's path, so a crash after the restore loses nothing claimed", () => {
    const root = join(scratch(), "mail");
    const world = startWorld(root);
    const me = newAddress();
    const session = startFsSession(world, me);
    world.tick();
    const first = sendTo(root, newAddress(), me, 2);
    world.advance(fsPollMs);
    const folder = join(root, me);
    renameSync(folder, `${folder}.moved`);
    cpSync(`${folder}.moved`, folder, { recursive: true, preserveTimestamps: true });
    const second = sendTo(root, newAddress(), me, 2);
    world.advance(fsPollMs);
    expect(session.injectedIds().sort()).toEqual([...first, ...second].sort());
    session.crash();
    const restarted = startFsSession(world, me);
    world.tick();
    expect(restarted.injectedIds().sort()).toEqual([...first, ...second].sort());
  });
});

describe("a folder where the claim journal belongs", () => {
  it("is moved aside, never removed, and claims go on", () => {
    const root = join(scratch(), "mail");
    const world = startWorld(root);
    const me = newAddress();
    const session = startFsSession(world, me);
    world.tick();
    const journal = join(root, me, "claiming.json");
    mkdirSync(journal);
    writeFileSync(join(journal, "keep"), "kept");
    const ids = sendTo(root, newAddress(), me, 2);
    world.advance(fsPollMs);
    expect(session.injectedIds().sort()).toEqual([...ids].sort());
    const aside = readdirSync(join(root, me)).filter((name) => name.startsWith("claiming.json.aside-"));
    expect(aside).toHaveLength(1);
    expect(readFileSync(join(root, me, aside[0] as string, "keep"), "utf8")).toBe("kept");
    expect((journalOf(root, me) as string[]).length).toBe(2);
  });
});

describe("a claim journal larger than the old 1 MiB read bound", () => {
  it("is read whole: its folder is never pruned and every name in it is recovered", () => {
    const root = join(scratch(), "mail");
    const world = startWorld(root);
    const me = newAddress();
    const closed = newAddress();
    const cur = join(root, closed, "cur");
    mkdirSync(cur, { recursive: true, mode: 0o700 });
    for (const box of ["new", "tmp", "sent"]) mkdirSync(join(root, closed, box), { mode: 0o700 });
    const names: string[] = [];
    for (let i = 0; i < 9_000; i++) {
      const envelope = newEnvelope({ from: me, to: closed, kind: "message", body: `unread ${i}` }, Date.now());
      const name = `${envelopeFileName(1_700_000_000_000 + i, envelope.id)}${"-".repeat(60)}`;
      names.push(name);
    }
    writeFileSync(join(root, closed, "claiming.json"), JSON.stringify(names));
    expect(readFileSync(join(root, closed, "claiming.json")).length).toBeGreaterThan(1024 * 1024);
    const session = startFsSession(world, me);
    world.tick();
    expect(session.engine.prune()._unsafeUnwrap()).toBe(0);
    expect(readdirSync(root)).toContain(closed);
    // The same journal for a session that restarts on that address: every name is read from cur/.
    for (const name of names.slice(0, 2_500)) {
      const id = name.slice(16, 52);
      writeFileSync(
        join(cur, name),
        encodeEnvelope(newEnvelope({ from: me, to: closed, kind: "message", body: id }, 0)),
      );
    }
    const restarted = startFsSession(world, closed);
    world.tick();
    expect(restarted.injectedIds()).toHaveLength(2_500);
    // Over many turns of the event loop, a slice at a time: the host answers in between.
    const perTurn = restarted.turns.map((n, i, all) => n - (all[i - 1] ?? 0));
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(claimSliceMax);
    expect(perTurn.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2_500 / claimSliceMax);
  });
});

describe("a folder fsync that fails after the rename", () => {
  /** node:fs whose fsync of any folder fails with EIO, as a failing disk would report it. */
  function failingFolderSync(): FsLike {
    const folders = new Set<number>();
    return {
      ...nodeFs,
      openSync(path: string, flags: number, mode?: number) {
        const fd = nodeFs.openSync(path, flags, mode);
        if ((flags & nodeFs.constants.O_DIRECTORY) !== 0) folders.add(fd);
        return fd;
      },
      closeSync(fd: number) {
        folders.delete(fd);
        nodeFs.closeSync(fd);
      },
      fsyncSync(fd: number) {
        if (folders.has(fd)) throw Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO" });
        nodeFs.fsyncSync(fd);
      },
    } as FsLike;
  }

  it("reports the mail sent but not yet durable, keeps the sent copy and awaits its answer: a retry would deliver it twice", () => {
    const root = join(scratch(), "mail");
    const world = startWorld(root);
    const recipient = startFsSession(world, newAddress());
    const sender = startFsSession(world, newAddress(), { fs: failingFolderSync() });
    world.tick();
    const sent = sender.engine.request(recipient.address, "Please review.", "command");
    expect(sent.isOk()).toBe(true);
    const value = sent._unsafeUnwrap();
    expect(value.unsynced).toMatchObject({ kind: "io", op: "fsync", code: "EIO" });
    expect(readdirSync(join(root, recipient.address, "new"))).toEqual([
      envelopeFileName(Date.parse(value.envelope.ts), value.envelope.id),
    ]);
    expect(readdirSync(join(root, sender.address, "sent"))).toHaveLength(1);
    expect(sender.engine.footer().awaiting).toBe(1);
    world.advance(fsPollMs);
    expect(recipient.injectedIds()).toEqual([value.envelope.id]);
  });
});
