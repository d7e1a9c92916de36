// The two filesystems the contract suite runs on, with the raw calls a test needs to arrange a
// folder by hand (links, old mtimes, planted files) and to inspect what the store left behind.
import * as nodeFsModule from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { createMemoryFs, memoryFsUid } from "../../../src/adapters/memory/memory-fs.js";
import { nodeFs } from "../../../src/adapters/node/node-fs.js";
import { currentUid } from "../../../src/adapters/node/process-user.js";
import { type Address, isAddress } from "../../../src/domain/mail/address.js";
import type { Envelope } from "../../../src/domain/mail/envelope.js";

export interface RawFs {
  write(path: string, text: string): void;
  read(path: string): string;
  mkdir(path: string): void;
  symlink(target: string, path: string): void;
  link(existing: string, path: string): void;
  rename(from: string, to: string): void;
  /** Sets atime and mtime, in ms. */
  touch(path: string, mtimeMs: number): void;
  exists(path: string): boolean;
  isLink(path: string): boolean;
  mtimeMs(path: string): number;
  /** Permission bits, from lstat. */
  mode(path: string): number;
  chmod(path: string, mode: number): void;
  /** Gives the folder, file or link itself (never a link's target) to user `uid`. */
  chown(path: string, uid: number): void;
  list(path: string): string[];
  rmTree(path: string): void;
  /** Removes a file or a link itself (memfs's rmSync of a link removes what it points to). */
  unlink(path: string): void;
}

export interface Backend {
  fs: FsLike;
  raw: RawFs;
  /** The user the store runs as, and the owner of what it creates. */
  uid: number;
  /** The mail root (not created yet). */
  root: string;
  /** A folder outside the mail root, for link targets that must stay untouched. */
  outside: string;
  /** Only node fs has FIFOs. */
  real: boolean;
  cleanup(): void;
}

export function nodeBackend(): Backend {
  const fs = nodeFsModule;
  const base = fs.mkdtempSync(join(tmpdir(), "fs-mail-store-"));
  fs.mkdirSync(join(base, "outside"));
  const raw: RawFs = {
    write: (path, text) => fs.writeFileSync(path, text),
    read: (path) => fs.readFileSync(path, "utf8"),
    mkdir: (path) => fs.mkdirSync(path, { recursive: true }),
    symlink: (target, path) => fs.symlinkSync(target, path),
    link: (existing, path) => fs.linkSync(existing, path),
    rename: (from, to) => fs.renameSync(from, to),
    touch: (path, mtimeMs) => fs.utimesSync(path, mtimeMs / 1000, mtimeMs / 1000),
    exists: (path) => fs.existsSync(path),
    isLink: (path) => fs.lstatSync(path).isSymbolicLink(),
    mtimeMs: (path) => fs.lstatSync(path).mtimeMs,
    mode: (path) => fs.lstatSync(path).mode & 0o777,
    chmod: (path, mode) => fs.chmodSync(path, mode),
    chown: (path, uid) => fs.lchownSync(path, uid, uid),
    list: (path) => fs.readdirSync(path).sort(),
    rmTree: (path) => fs.rmSync(path, { recursive: true, force: true }),
    unlink: (path) => fs.unlinkSync(path),
  };
  return {
    fs: nodeFs,
    raw,
    uid: currentUid(),
    root: join(base, "mail"),
    outside: join(base, "outside"),
    real: true,
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
}

export function memoryBackend(): Backend {
  const { fs, vol } = createMemoryFs();
  // 0755 as node's umask makes it: memfs has none, and a folder above the root open to others is refused.
  vol.mkdirSync("/base/outside", { recursive: true, mode: 0o755 });
  const raw: RawFs = {
    write: (path, text) => vol.writeFileSync(path, text),
    read: (path) => String(vol.readFileSync(path, "utf8")),
    mkdir: (path) => {
      vol.mkdirSync(path, { recursive: true, mode: 0o755 });
    },
    symlink: (target, path) => vol.symlinkSync(target, path),
    link: (existing, path) => vol.linkSync(existing, path),
    rename: (from, to) => vol.renameSync(from, to),
    touch: (path, mtimeMs) => vol.utimesSync(path, mtimeMs / 1000, mtimeMs / 1000),
    exists: (path) => vol.existsSync(path),
    isLink: (path) => vol.lstatSync(path).isSymbolicLink(),
    mtimeMs: (path) => Number(vol.lstatSync(path).mtimeMs),
    mode: (path) => Number(vol.lstatSync(path).mode) & 0o777,
    chmod: (path, mode) => vol.chmodSync(path, mode),
    chown: (path, uid) => vol.lchownSync(path, uid, uid),
    list: (path) => vol.readdirSync(path).map(String).sort(),
    rmTree: (path) => vol.rmSync(path, { recursive: true, force: true }),
    unlink: (path) => vol.unlinkSync(path),
  };
  return {
    fs,
    raw,
    uid: memoryFsUid,
    root: "/base/mail",
    outside: "/base/outside",
    real: false,
    cleanup: () => vol.reset(),
  };
}

/** Both filesystems, for describe.each. */
export const backends = [
  { name: "node fs", make: nodeBackend },
  { name: "memfs", make: memoryBackend },
];

export function address(value: string): Address {
  if (!isAddress(value)) throw new Error(`bad test address ${value}`);
  return value;
}

export const alice = address("aaaaaaaa-1111-4111-8111-111111111111");
export const bob = address("bbbbbbbb-2222-4222-8222-222222222222");
export const carol = address("cccccccc-3333-4333-8333-333333333333");
export const sentAtMs = 1_760_000_000_123;

export function envelope(id: string, overrides: Partial<Envelope> = {}): Envelope {
  return {
    id,
    from: alice,
    to: bob,
    kind: "request",
    hops: 0,
    in_reply_to: [],
    status: "",
    ts: "2026-01-01T00:00:00.000Z",
    body: "hello ✓",
    ...overrides,
  };
}
