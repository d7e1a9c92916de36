// What the bus store's contract suites share: a store over either backend, and valid files to put in it.
import { createFsBusStore } from "../../../../src/adapters/fs/bus/fs-bus-store.js";
import type { FsLike } from "../../../../src/adapters/fs/shared/fs-like.js";
import { createSeededEntropy } from "../../../../src/adapters/memory/seeded-entropy.js";
import type { BusMessage, SessionRecord } from "../../../../src/domain/bus/bus-files.js";
import type { BusStore } from "../../../../src/ports/bus/bus-store.js";
import type { Backend } from "../backends.js";

export const alice = "aaaaaaaa-1111-4111-8111-111111111111";
export const bob = "bbbbbbbb-2222-4222-8222-222222222222";
export const carol = "cccccccc-3333-4333-8333-333333333333";
export const tokenA = "token-a-1";
export const tokenB = "token-b-2";

export function busStore(b: Backend, fs: FsLike = b.fs): BusStore {
  return createFsBusStore({ fs, root: b.root, uid: b.uid, entropy: createSeededEntropy(7) });
}

export function sessionRecord(id: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    label: "billing-core",
    pid: 4242,
    started: "12345",
    joinToken: tokenA,
    cwd: "/repo/src",
    root: "/repo",
    armed: true,
    wake: false,
    joinedAt: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

export function busMessage(id: string, overrides: Partial<BusMessage> = {}): BusMessage {
  return {
    id,
    from: alice,
    fromLabel: "billing-core",
    to: bob,
    kind: "message",
    text: "contract v2 ✓",
    paths: ["src/api"],
    sentAt: "2026-01-01T00:00:00.000Z",
    hops: 0,
    ...overrides,
  };
}

/** A FsLike whose `failAt`-th link (1-based) fails with EIO, as a full or broken disk would. */
export function failingLinks(fs: FsLike, failAt: number): FsLike {
  let links = 0;
  return {
    ...fs,
    linkSync(existing: string, path: string) {
      links++;
      if (links === failAt) throw Object.assign(new Error(`EIO: injected, link '${path}'`), { code: "EIO" });
      fs.linkSync(existing, path);
    },
  };
}

/** Every file under `path` with its text, for proving that nothing outside the bus folder changed. */
export function snapshot(b: Backend, path: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of b.raw.list(path))
    out[name] = b.raw.isLink(`${path}/${name}`) ? "link" : b.raw.read(`${path}/${name}`);
  return out;
}

/** A look at an inbox late enough that no listing is unsure of what it holds, and early enough that
 * nothing has expired (the tests' mtimes are set near the epoch). */
export const anyTime = { nowMs: 4_000_000_000_000, expiredBeforeMs: 0 };
