// The production wiring of one session's mailbox: node fs, /proc, fs.watch, the system clock.
import { pollIntervalMs } from "../../domain/limits.js";
import { createMailboxEngine, type MailboxEngine } from "../../domain/mail/engine/index.js";
import type { AgentHost } from "../../ports/agent-host.js";
import { createFsMailStore } from "../fs/fs-mail-store.js";
import { createConfigFile } from "./config-file.js";
import { cryptoEntropy } from "./crypto-entropy.js";
import { createFsWatcher } from "./fs-watcher.js";
import { mailRootFromEnv } from "./mail-root.js";
import { nodeFs } from "./node-fs.js";
import { createProcessProbe } from "./proc-probe.js";
import { currentUid } from "./process-user.js";
import { systemClock } from "./system-clock.js";

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

export function createNodeMailbox(options: NodeMailboxOptions): MailboxEngine {
  return createMailboxEngine({
    store: createFsMailStore({ fs: nodeFs, root: options.root ?? mailRootFromEnv(), uid: currentUid() }),
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
