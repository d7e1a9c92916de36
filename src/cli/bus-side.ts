// The bus of the current folder's repository from the shell: read as it is, or joined by the shell
// for one command (a send, a read of its inbox) and left when the command ends.
import { ok, type Result } from "neverthrow";
import type { BusError } from "../domain/bus/bus-errors.js";
import type { BusEngine, StatusView } from "../domain/bus/engine/index.js";
import type { ListedSession } from "../domain/mail/engine/index.js";
import type { BusHost } from "../ports/bus/bus-host.js";
import type { RepoPlace } from "../ports/bus/repo-resolver.js";
import { busKeys, createNodeBus, resolveBusPlace } from "../wiring/node-bus.js";
import type { CliContext } from "./command.js";
import { shellAddress } from "./mail-side.js";

export interface RepoBus {
  engine: BusEngine;
  place: RepoPlace;
  /** Its folder exists: a session opened it once. Looking at a bus that does not makes nothing. */
  exists: boolean;
}

/** The bus of the repository the shell stands in (the folder itself outside a repository); `host`
 * defaults to the shell's own, which says when it closed an open bus folder. */
export function openRepoBus(ctx: CliContext, caller?: ListedSession, host = shellHost(ctx, caller)): RepoBus | string {
  const place = resolveBusPlace(ctx.term.cwd);
  if (place.isErr()) return place.error.message;
  const engine = createNodeBus({ host, agentDir: ctx.agentDir, place: place.value });
  return { engine, place: place.value, exists: busKeys(ctx.agentDir).includes(place.value.key) };
}

function shellHost(ctx: CliContext, caller: ListedSession | undefined): BusHost {
  return {
    raiseTurn() {},
    warn(warning) {
      if (warning.kind === "bus-opened") ctx.term.err(`switchboard: closed ${warning.path} to other users again.\n`);
    },
    peerTurnHops: () => caller?.hops ?? 0,
  };
}

/** A bus's members and its standing offers. */
export type BusView = Pick<StatusView, "sessions" | "offers">;

/** The members and offers of `bus` as they are, read without joining; none, and nothing made on
 * disk, when no session ever opened it. */
export function lookAtBus(bus: RepoBus): Result<BusView, BusError> {
  return bus.exists ? bus.engine.snapshot() : ok({ sessions: [], offers: [] });
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
