// Mailbox engines on a real file system (node:fs on a temp folder or a small tmpfs), driven by a
// virtual clock so that each step is exact: the faults are the kernel's own (ENOSPC, EMFILE, EROFS).
// A "crash" stops a session's timers and deferred work without a shutdown, as kill -9 would.

import { createFsMailStore } from "../../../src/adapters/fs/mail/fs-mail-store.js";
import type { FsLike } from "../../../src/adapters/fs/shared/fs-like.js";
import { createManualWatcher } from "../../../src/adapters/memory/manual-watcher.js";
import { createProcessTable, type ProcessTable } from "../../../src/adapters/memory/process-table.js";
import { createSeededEntropy } from "../../../src/adapters/memory/seeded-entropy.js";
import { createVirtualClock, type VirtualClock } from "../../../src/adapters/memory/virtual-clock.js";
import { nodeFs } from "../../../src/adapters/node/node-fs.js";
import { currentUid } from "../../../src/adapters/node/process-user.js";
import type { Address } from "../../../src/domain/mail/address.js";
import { createMailboxEngine, type MailboxEngine } from "../../../src/domain/mail/engine/index.js";
import type { TimerHandle } from "../../../src/ports/shared/clock.js";
import { trackedClock } from "../../domain/mail/engine/harness.js";
import { createRecordingHost, type RecordingHost } from "../../domain/mail/engine/recording-host.js";

export const fsPollMs = 250;

export interface FsWorld {
  root: string;
  clock: VirtualClock;
  table: ProcessTable;
  /** Moves virtual time (firing due timers), then runs deferred work. */
  advance(ms: number): void;
  /** Runs deferred work (the later turns of the event loop). */
  tick(): void;
}

export interface FsSession {
  address: Address;
  engine: MailboxEngine;
  host: RecordingHost;
  /** Enters every injected mail that starts a turn and was not entered yet; returns the ids. */
  enterAll(): string[];
  /** Ids of every mail injected, in order (duplicates kept). */
  injectedIds(): string[];
  /** The process dies: no shutdown, its timers and deferred work never run again. */
  crash(): void;
  /** A watcher hint naming `name` in this session's new/ (sessions started with `watch: true`). */
  hint(name: string): void;
  /** Deferred turns this session ran work in, with how many mails each injected. */
  readonly turns: number[];
}

export function createFsWorld(root: string, startMs = Date.now()): FsWorld {
  const clock = createVirtualClock(startMs);
  return {
    root,
    clock,
    table: createProcessTable(),
    advance(ms) {
      clock.advance(ms);
      clock.runDeferred();
    },
    tick: () => void clock.runDeferred(),
  };
}

export function startFsSession(
  world: FsWorld,
  address: Address,
  options: { fs?: FsLike; watch?: boolean; shown?: ReadonlySet<string> } = {},
): FsSession {
  const identity = world.table.spawn();
  let alive = true;
  const live = new Set<TimerHandle>();
  const host = createRecordingHost();
  for (const id of options.shown ?? []) host.shown.add(id);
  const turns: number[] = [];
  const watcher = createManualWatcher();
  const clock = trackedClock(
    world.clock,
    live,
    () => alive,
    () => turns.push(host.injected.length),
  );
  const engine = createMailboxEngine({
    store: createFsMailStore({ fs: options.fs ?? nodeFs, root: world.root, uid: currentUid() }),
    probe: world.table.probeFor(identity.pid),
    clock,
    watcher,
    entropy: createSeededEntropy(identity.pid),
    host,
    config: { path: `${world.root}/../session-mail.json`, read: () => ({ kind: "missing" }) },
    durable: true,
    pollIntervalMs: fsPollMs,
    watch: options.watch ?? false,
  });
  const entered = new Set<string>();
  const session: FsSession = {
    address,
    engine,
    host,
    turns,
    enterAll() {
      const ids = host.injected
        .filter((i) => i.options.triggerTurn && !entered.has(i.mail.details.mailId))
        .map((i) => i.mail.details.mailId);
      for (const id of ids) {
        entered.add(id);
        host.shown.add(id);
        engine.messageEntered(id);
      }
      return ids;
    },
    injectedIds: () => host.injected.map((i) => i.mail.details.mailId),
    hint: (name) => void watcher.notify(`${world.root}/${address}/new`, name),
    crash() {
      alive = false;
      world.table.crash(identity.pid);
      for (const handle of [...live]) handle.cancel();
    },
  };
  engine.sessionStarted({ address, name: undefined, cwd: "/work" });
  return session;
}
