// The bus of the current folder's repository from the shell: read as it is, or joined by the shell
// for one command (a send, a read of its inbox) and left when the command ends.
import type { BusEngine } from "../domain/bus/engine/index.js";
import type { ListedSession } from "../domain/mail/engine/index.js";
import type { BusHost } from "../ports/bus/bus-host.js";
import type { RepoPlace } from "../ports/bus/repo-resolver.js";
import { createNodeBus, resolveBusPlace } from "../wiring/node-bus.js";
import type { CliContext } from "./command.js";
import { shellAddress } from "./mail-side.js";

export interface RepoBus {
  engine: BusEngine;
  place: RepoPlace;
}

/** The bus of the repository the shell stands in (the folder itself outside a repository). */
export function openRepoBus(ctx: CliContext, caller?: ListedSession): RepoBus | string {
  const place = resolveBusPlace(ctx.term.cwd);
  if (place.isErr()) return place.error.message;
  const host: BusHost = {
    raiseTurn() {},
    warn(warning) {
      if (warning.kind === "bus-opened") ctx.term.err(`switchboard: closed ${warning.path} to other users again.\n`);
    },
    peerTurnHops: () => caller?.hops ?? 0,
  };
  return { engine: createNodeBus({ host, agentDir: ctx.agentDir, place: place.value }), place: place.value };
}

/** The shell on `bus` as a session that has not joined yet: its id is the shell's mail address, its
 * Pi name "shell", so the label it joins under is `shell` unless another member holds it. */
export function startShellOnBus(ctx: CliContext, bus: RepoBus): string | undefined {
  const id = shellAddress(ctx);
  if (id !== undefined) bus.engine.sessionStarted({ id, name: "shell" }, "startup");
  return id;
}

/** A bus host for a reader: it never joins, so nothing is raised or warned. */
export const readerHost: BusHost = { raiseTurn() {}, warn() {} };
