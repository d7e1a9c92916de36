// The mailbox from the shell: a reader that is no session (listings), and the shell's own session,
// opened on one of its slots for a send or an ask and closed when the command ends.
import { statSync } from "node:fs";
import type { Address } from "../domain/mail/address.js";
import type { ListedSession, MailboxEngine } from "../domain/mail/engine/index.js";
import type { AgentHost } from "../ports/mail/agent-host.js";
import { createNodeMailbox, createNodeMailStore } from "../wiring/node-mailbox.js";
import type { CliContext } from "./command.js";
import { shellBaseAddress, shellSlotsMax, slotAddress, slotName } from "./shell-address.js";

/** Why the mail root cannot hold mail (a file where it, or a folder above it, must be), or undefined.
 * A root not made yet is fine: the first session makes it. */
export function unusableRoot(root: string): string | undefined {
  try {
    if (!statSync(root).isDirectory()) return `the mail root ${root} is not a folder (switchboard doctor says more).`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOTDIR")
      return `the mail root ${root} cannot be made: a file stands where a folder above it must be (switchboard doctor says more).`;
  }
  return undefined;
}

/** A host that shows nothing: the reader's engine never starts a session. */
const quietHost: AgentHost = { inject() {}, notify() {}, setStatus() {}, hasShown: () => false };

/** The mail root read without being a session: running sessions, sent mail, prune verdicts. */
export function openMailReader(ctx: CliContext): MailboxEngine {
  return createNodeMailbox({ host: quietHost, agentDir: ctx.agentDir, root: ctx.mailRoot, watch: false });
}

/** The Pi session this program runs in, when a tool of one started it (Pi's bash tool sets
 * PI_SESSION_ID) and that session runs: its hop count and waits carry over to what the shell sends. */
export function callerSession(ctx: CliContext, running: readonly ListedSession[]): ListedSession | undefined {
  const id = ctx.term.env.PI_SESSION_ID;
  if (id === undefined || id === "") return undefined;
  return running.find((s) => s.address === id);
}

export interface ShellSession {
  engine: MailboxEngine;
  address: Address;
  name: string;
  close(): void;
}

/** The shell's base address, once the mail root is opened (made, or closed to others, as a session
 * opens it); undefined when it cannot be. */
export function shellAddress(ctx: CliContext): Address | undefined {
  return createNodeMailStore(ctx.mailRoot).openRoot().isOk() ? shellBaseAddress(ctx.mailRoot) : undefined;
}

/** The shell's session on the first slot none of the `running` sessions holds, from `firstSlot` on:
 * its running record (busy, refusing mail so nobody sends it work; replies still come) lives until
 * `close`. `caller`'s hop count is the shell's. */
export function openShell(
  ctx: CliContext,
  running: readonly ListedSession[],
  caller: ListedSession | undefined,
  firstSlot = 1,
): { session: ShellSession; slot: number } | undefined {
  const base = shellAddress(ctx);
  if (base === undefined) return undefined;
  const taken = new Set<string>(running.map((s) => s.address));
  for (let slot = firstSlot; slot <= shellSlotsMax; slot++) {
    const address = slotAddress(base, slot);
    if (taken.has(address)) continue;
    return { session: startShell(ctx, address, slotName(slot), caller), slot };
  }
  return undefined;
}

function startShell(ctx: CliContext, address: Address, name: string, caller: ListedSession | undefined): ShellSession {
  let engine: MailboxEngine | undefined;
  const host: AgentHost = {
    // Mail that reaches the shell besides the answer it waits on (a late answer to an earlier ask)
    // is taken as read: the shell shows nothing but its own answer.
    inject: (mail) => void setImmediate(() => engine?.messageEntered(mail.details.mailId)),
    // A guest slot means another shell took it at the same moment: not the twin session the notice
    // warns of. An ask moves to the next slot; a request is written from this one all the same.
    notify: (text, level, kind) => {
      if (level !== "info" && kind !== "guest") ctx.term.err(`switchboard: ${text}\n`);
    },
    setStatus() {},
    hasShown: () => false,
    peerTurnHops: () => caller?.hops ?? 0,
  };
  engine = createNodeMailbox({ host, agentDir: ctx.agentDir, root: ctx.mailRoot });
  engine.sessionStarted({ address, name, cwd: ctx.term.cwd });
  engine.setMailMode("refuse");
  engine.runStarted();
  const started = engine;
  return { engine: started, address, name, close: () => started.shutdown() };
}
