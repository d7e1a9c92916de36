// The production wiring of one session's mailbox: node fs, /proc, fs.watch, the system clock.

import { createFsMailStore } from "../adapters/fs/mail/fs-mail-store.js";
import { createConfigFile } from "../adapters/node/config-file.js";
import { cryptoEntropy } from "../adapters/node/crypto-entropy.js";
import { createFsWatcher } from "../adapters/node/fs-watcher.js";
import { mailRootFromEnv } from "../adapters/node/mail-root.js";
import { nodeFs } from "../adapters/node/node-fs.js";
import { createProcessProbe } from "../adapters/node/proc-probe.js";
import { currentUid } from "../adapters/node/process-user.js";
import { systemClock } from "../adapters/node/system-clock.js";
import { createMailboxEngine, type MailboxEngine } from "../domain/mail/engine/index.js";
import { pollIntervalMs } from "../domain/mail/limits.js";
import type { AgentHost } from "../ports/mail/agent-host.js";
import type { MailStore } from "../ports/mail/mail-store.js";

export interface NodeMailboxOptions {
  host: AgentHost;
  /** Pi's agent dir: where session-mail.json lives. */
  agentDir: string;
  /** The mail root; defaults to the XDG state location. */
  root?: string;
  /** fsync each delivery (default true). */
  durable?: boolean;
  /** Watch new/ (default true); off leaves only the poll. */
  watch?: boolean;
  pollIntervalMs?: number;
}

/** The mail root's files alone, for a reader that is no session (the shell's listings). */
export function createNodeMailStore(root: string = mailRootFromEnv()): MailStore {
  return createFsMailStore({ fs: nodeFs, root, uid: currentUid() });
}

export function createNodeMailbox(options: NodeMailboxOptions): MailboxEngine {
  return createMailboxEngine({
    store: createNodeMailStore(options.root),
    probe: createProcessProbe(),
    clock: systemClock,
    watcher: createFsWatcher(),
    entropy: cryptoEntropy,
    host: options.host,
    config: createConfigFile(options.agentDir),
    durable: options.durable ?? true,
    pollIntervalMs: options.pollIntervalMs ?? pollIntervalMs,
    watch: options.watch ?? true,
  });
}
