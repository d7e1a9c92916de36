// The bus of one Pi session as the extension keeps it: the engine made on first use (the git call
// that finds the repository stays off Pi's start), except after a /reload, which keeps the
// membership and must keep listening; what the session's start and shutdown do; and the access the
// tool, the guards, the board and the join API share.
import type {
  ExtensionAPI,
  ExtensionContext,
  SessionShutdownEvent,
  SessionStartEvent,
} from "@earendil-works/pi-coding-agent";
import { err } from "neverthrow";
import { agentDirFromEnv } from "../../adapters/node/agent-dir.js";
import type { BusEngine, JoinRequest, StartReason } from "../../domain/bus/engine/index.js";
import { createNodeBus, resolveBusPlace } from "../../wiring/node-bus.js";
import { createBusHost } from "./bus-host.js";
import { leftUnreadText, releasedText } from "./farewell.js";
import { labelChannel } from "./join-api.js";
import { noticeType, readNoticeDetails } from "./notice.js";
import type { BusAccess } from "./session-tool.js";
import { createShortIds, type ShortIds } from "./short-ids.js";

interface Live {
  piContext: ExtensionContext;
  reason: StartReason;
  engine: BusEngine | undefined;
  /** The failure that kept the engine from starting, told once. */
  failed: string | undefined;
  failedTold?: boolean;
  /** The label last announced on session-label, to announce changes only. */
  announced: string | undefined;
  /** Inside its session_shutdown: no longer live, but what the leaving warns of is still told. */
  leaving?: boolean;
  /** The guards' failures told in this session (each told once). */
  guardsFailed?: Set<string>;
}

/** Claims a /new, /resume or fork released, told in the session that follows: the TUI clears its
 * chat to show that session, so a line shown during the shutdown would be gone at once. Module
 * state, because Pi runs the factory again in the same module for the next session. */
let releasedUntold: string | undefined;

interface BusRuntime {
  access: BusAccess;
  /** The session now, while it runs. */
  live(): Live | undefined;
  engineOf(current: Live): BusEngine | undefined;
  sessionStart(event: SessionStartEvent, piContext: ExtensionContext): void;
  sessionShutdown(event: SessionShutdownEvent): void;
}

export function createBusRuntime(pi: ExtensionAPI): BusRuntime {
  let live: Live | undefined;
  const shortIds = createShortIds();

  const announce = (current: Live, id: string, label: string | undefined) => {
    current.announced = label;
    pi.events.emit(labelChannel, { id, label });
  };

  const engineOf = (current: Live, quiet = false): BusEngine | undefined =>
    openEngine(pi, current, quiet, { shortIds, isLive: () => live === current, changed: () => access.changed() });

  const access: BusAccess = {
    shortIds,
    engine: (quiet) => (live === undefined ? undefined : engineOf(live, quiet)),
    join(request: JoinRequest) {
      const current = live;
      const engine = current === undefined ? undefined : engineOf(current);
      if (current === undefined || engine === undefined) return engineUnavailable();
      const joined = engine.join(request);
      if (joined.isOk()) {
        announce(current, joined.value.id, joined.value.label);
        // An explicit label is Pi's session name too, so /resume agrees with the record (announced
        // first: the rename that follows finds the label announced already).
        if (joined.value.named && pi.getSessionName() !== joined.value.label) pi.setSessionName(joined.value.label);
      }
      return joined;
    },
    guardFailed(key, text) {
      if (live !== undefined) tellGuardFailed(live, key, text);
    },
    changed() {
      const current = live;
      const member = current?.engine?.membership();
      if (current === undefined || member?.label === current.announced) return;
      announce(current, member?.id ?? current.piContext.sessionManager.getSessionId(), member?.label);
    },
  };

  const sessionStart = (event: SessionStartEvent, piContext: ExtensionContext) => {
    live = { piContext, reason: event.reason, engine: undefined, failed: undefined, announced: undefined };
    const untold = releasedUntold;
    releasedUntold = undefined;
    if (untold !== undefined) piContext.ui.notify(untold, "info");
    // A reload keeps the membership: the engine takes back its record and listens again at once,
    // and the label is announced again to the extensions whose factories ran anew.
    if (event.reason !== "reload") return;
    const engine = engineOf(live);
    if (engine === undefined) return;
    // Its notices are in the transcript: the mail they announced is not announced a second time.
    engine.markAnnounced(announcedIn(piContext));
    access.changed();
  };
  const sessionShutdown = (event: SessionShutdownEvent) => {
    const current = live;
    live = undefined;
    if (current?.engine === undefined) return;
    const member = current.engine.membership();
    current.leaving = true;
    let left: ReturnType<BusEngine["shutdown"]> = { released: [], leftUnread: undefined };
    try {
      left = current.engine.shutdown(event.reason);
    } finally {
      current.leaving = false;
    }
    const farewell = [
      left.released.length > 0 ? releasedText(left.released) : undefined,
      left.leftUnread === undefined ? undefined : leftUnreadText(left.leftUnread),
    ].filter((line) => line !== undefined);
    for (const line of farewell) tellReleased(current.piContext, event.reason, line);
    if (member !== undefined && event.reason !== "reload")
      pi.events.emit(labelChannel, { id: member.id, label: undefined });
  };
  return { access, live: () => live, engineOf: (current) => engineOf(current), sessionStart, sessionShutdown };
}

/** The engine of this session, made on first use. `quiet`: a guard's look, which tells nobody that
 * the bus is off (a session outside any repository edits files with nothing to guard); the person
 * hears it at their first bus action. */
function openEngine(
  pi: ExtensionAPI,
  current: Live,
  quiet: boolean,
  host: { shortIds: ShortIds; isLive: () => boolean; changed: () => void },
): BusEngine | undefined {
  if (current.failed !== undefined && !quiet && !current.failedTold) {
    current.failedTold = true;
    current.piContext.ui.notify(current.failed, "error");
  }
  if (current.engine !== undefined || current.failed !== undefined) return current.engine;
  const place = resolveBusPlace(current.piContext.cwd);
  if (place.isErr()) {
    current.failed = `The bus is off: ${place.error.message}`;
    current.failedTold = !quiet;
    if (!quiet) current.piContext.ui.notify(current.failed, "error");
    return undefined;
  }
  const leaving = () => current.leaving === true;
  const engine = createNodeBus({
    host: createBusHost(pi, current.piContext, host.isLive, host.changed, leaving, host.shortIds),
    agentDir: agentDirFromEnv(),
    place: place.value,
  });
  current.engine = engine;
  const id = current.piContext.sessionManager.getSessionId();
  host.shortIds.own(id);
  engine.sessionStarted({ id, name: pi.getSessionName() }, current.reason);
  return engine;
}

/** A guard's failure, told once per session by its key. */
function tellGuardFailed(current: Live, key: string, text: string): void {
  current.guardsFailed ??= new Set();
  if (current.guardsFailed.has(key)) return;
  current.guardsFailed.add(key);
  try {
    current.piContext.ui.notify(text, "warning");
  } catch {
    // A warning that cannot be shown must not turn a guard's let-through into a block.
  }
}

/** The message ids the bus notices of this session's transcript announced. */
function announcedIn(piContext: ExtensionContext): string[] {
  try {
    return piContext.sessionManager.getEntries().flatMap((entry) => {
      if (entry.type !== "custom_message" || entry.customType !== noticeType) return [];
      return readNoticeDetails(entry.details)?.ids ?? [];
    });
  } catch {
    return [];
  }
}

/** Where a person reads what a leaving released. A TUI quit has stopped the TUI before the
 * shutdown, so its line goes to the terminal; /new, /resume and a fork tell the next session. */
function tellReleased(piContext: ExtensionContext, reason: string, text: string): void {
  try {
    if (piContext.mode === "rpc") piContext.ui.notify(text, "info");
    else if (piContext.mode === "tui" && reason !== "quit")
      releasedUntold = releasedUntold === undefined ? text : `${releasedUntold}\n${text}`;
    else process.stderr.write(`${text}\n`);
  } catch {
    // A line about leaving is not worth a failed shutdown.
  }
}

function engineUnavailable(): ReturnType<BusEngine["join"]> {
  return err({ kind: "not-started" });
}
