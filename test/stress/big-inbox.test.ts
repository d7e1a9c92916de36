// A giant inbox on real files drains a slice per turn of the event loop, exactly once; a watcher
// hint for mail handled long ago costs one lstat and writes nothing. (Its speed, stall and memory
// at 100,000 envelopes are `npm run bench`'s bigInbox figure, not a timed test.)

import * as nodeFsModule from "node:fs";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createFsMailStore } from "../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../src/adapters/fs/shared/fs-like.js";
import { nodeFs } from "../../src/adapters/node/node-fs.js";
import { currentUid } from "../../src/adapters/node/process-user.js";
import type { Address } from "../../src/domain/mail/address.js";
import { claimSliceMax, pendingMailMax } from "../../src/domain/mail/limits.js";
import { createFsWorld, fsPollMs, startFsSession } from "./harness/fs-session.js";
import { newAddress, newEnvelope } from "./harness/mail.js";

const envelopes = 5_000;

let dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  dirs = [];
});

function mailRoot(): string {
  const dir = mkdtempSync(join(tmpdir(), "big-inbox-"));
  dirs.push(dir);
  return join(dir, "mail");
}

function fill(root: string, to: Address, count: number): string[] {
  const store = createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
  store.openRoot()._unsafeUnwrap();
  const ids: string[] = [];
  const from = newAddress();
  for (let i = 0; i < count; i++) {
    const envelope = newEnvelope({ from, to, kind: "message", body: `mail ${i}` }, 1_700_000_000_000 + i);
    store.deliver(envelope, 1_700_000_000_000 + i, { durable: false })._unsafeUnwrap();
    ids.push(envelope.id);
  }
  return ids;
}

/** node:fs that counts its calls by name. */
function countingFs(): { fs: FsLike; calls: Map<string, number> } {
  const calls = new Map<string, number>();
  const fs = new Proxy(nodeFsModule, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== "function" || typeof key !== "string") return value;
      return (...args: unknown[]) => {
        calls.set(key, (calls.get(key) ?? 0) + 1);
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  }) as unknown as FsLike;
  return { fs, calls };
}

describe("a giant inbox on real files", () => {
  it(`drains ${envelopes} waiting envelopes exactly once, at most ${claimSliceMax} per turn of the event loop`, () => {
    const root = mailRoot();
    const world = createFsWorld(root);
    const me = newAddress();
    const ids = fill(root, me, envelopes);
    const session = startFsSession(world, me, { watch: true });
    // The host reads each mail as it arrives, as Pi does between turns.
    let read = 0;
    for (let turn = 0; turn < 2 * envelopes && session.injectedIds().length < envelopes; turn++) {
      const ran = world.clock.runDeferred();
      read += session.enterAll().length;
      if (ran === 0) world.advance(fsPollMs);
    }
    read += session.enterAll().length;
    expect(session.injectedIds().sort()).toEqual([...ids].sort());
    expect(read).toBe(envelopes);
    const perTurn = session.turns.map((n, i, all) => n - (all[i - 1] ?? 0));
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(claimSliceMax);
  });

  it(`claims no more than ${pendingMailMax} that wait to be read; the rest waits in new/`, () => {
    const root = mailRoot();
    const world = createFsWorld(root);
    const me = newAddress();
    fill(root, me, pendingMailMax + 300);
    const session = startFsSession(world, me);
    world.tick();
    world.advance(fsPollMs);
    expect(session.injectedIds()).toHaveLength(pendingMailMax);
    session.enterAll();
    world.advance(fsPollMs);
    world.tick();
    expect(session.injectedIds()).toHaveLength(pendingMailMax + 300);
  });

  it("spends one lstat, and writes nothing, on a watcher hint for mail another process claimed", () => {
    const root = mailRoot();
    const world = createFsWorld(root);
    const me = newAddress();
    const { fs, calls } = countingFs();
    const session = startFsSession(world, me, { watch: true, fs });
    world.tick();
    fill(root, me, 1);
    const [name] = nodeFsModule.readdirSync(join(root, me, "new"));
    // Claimed by someone else (a twin, a tool): gone from new/ before this session's hint comes.
    nodeFsModule.renameSync(join(root, me, "new", name as string), join(root, me, "cur", name as string));
    calls.clear();
    session.hint(name as string);
    expect(Object.fromEntries(calls)).toEqual({ lstatSync: 1 });
    expect(session.injectedIds()).toEqual([]);
  });
});
