// What every part of the bus engine reaches: the ports, this process, and the few helpers they share.
import { err, ok, type Result } from "neverthrow";
import type { BusHost, BusWarning } from "../../../ports/bus/bus-host.js";
import type { BusStore } from "../../../ports/bus/bus-store.js";
import type { RealPaths } from "../../../ports/bus/real-paths.js";
import type { RepoPlace } from "../../../ports/bus/repo-resolver.js";
import type { Clock } from "../../../ports/shared/clock.js";
import type { Entropy } from "../../../ports/shared/entropy.js";
import type { ProcessIdentity, ProcessProbe } from "../../../ports/shared/process-probe.js";
import type { StoreError } from "../../../ports/shared/store-error.js";
import type { Watcher } from "../../../ports/shared/watcher.js";
import type { BusError } from "../bus-errors.js";
import { createSilenceWatch, type SilenceWatch } from "../silence.js";

/** Ports only. `place` is resolved before the engine exists (the repository and its bus folder). */
export interface BusEngineDeps {
  store: BusStore;
  place: RepoPlace;
  clock: Clock;
  entropy: Entropy;
  probe: ProcessProbe;
  /** Hints on this session's own inbox folder; they may be dropped: a poll every watchPollMs does the work. */
  watcher: Watcher;
  realPaths: RealPaths;
  host: BusHost;
  /** The hop limit: mail sent this many hops into a chain of sessions waking each other wakes no
   * one (the mailbox's `hopLimit`, one setting for both). Read when mail is about to wake a turn. */
  hopLimit(): number;
}

export interface BusContext extends BusEngineDeps {
  /** This process, as its record names it. */
  self: ProcessIdentity;
  /** What this reader saw of time passing, across its calls: the ground of every expiry. */
  silence: SilenceWatch;
  /** Opens the store the first time anything needs it; a failure is tried again next time. */
  ready(): Result<void, BusError>;
  /** A background failure reaches the host once per key until `recovered(key)`. */
  warnOnce(key: string, warning: BusWarning): void;
  recovered(key: string): void;
}

export function createContext(deps: BusEngineDeps): BusContext {
  let opened = false;
  const warned = new Set<string>();
  return {
    ...deps,
    self: deps.probe.self(),
    silence: createSilenceWatch(deps.clock.now(), deps.clock.monotonic()),
    ready() {
      if (opened) return ok(undefined);
      const open = deps.store.open();
      if (open.isErr()) return err({ kind: "store", error: open.error });
      opened = true;
      return ok(undefined);
    },
    warnOnce(key, warning) {
      if (warned.has(key)) return;
      warned.add(key);
      deps.host.warn(warning);
    },
    recovered: (key) => void warned.delete(key),
  };
}

/** A store call's failure as the engine's error. */
export function fromStore<T>(result: Result<T, StoreError>): Result<T, BusError> {
  return result.mapErr((error) => ({ kind: "store", error }));
}
