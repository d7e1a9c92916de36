// The engine's read-only view as the board draws it: one snapshot and a peek at the front of this
// session's inbox, adapted to plain rows. What the 1 s poll costs Pi's loop is one step of this (a
// page of claims/, or the last page and the view) and, on another turn, one screen.
import { describeBusError } from "../../../domain/bus/bus-errors.js";
import type { BusEngine, InboxPreview, StatusView } from "../../../domain/bus/engine/index.js";
import { inboxLimitMax } from "../../../domain/bus/limits.js";
import { listeningWords } from "../texts.js";
import type { BoardSnapshot, InboxRow, SnapshotRead } from "./board-model.js";

function inboxRows(preview: InboxPreview | undefined): InboxRow[] {
  return (preview?.entries ?? []).map((entry) =>
    entry.kind === "message"
      ? {
          type: "message",
          id: entry.message.id,
          fromId: entry.message.from,
          fromLabel: entry.message.fromLabel,
          kind: entry.message.kind,
          text: entry.message.text,
          paths: entry.message.paths,
          sentAt: entry.message.sentAt,
          arrivalMs: entry.arrivedMs,
        }
      : { type: "unreadable", file: entry.name },
  );
}

function boardSnapshot(view: StatusView, preview: InboxPreview | undefined, nowMs: number): BoardSnapshot {
  // Each offered claim by its holder and key: the recipient its row names.
  const offered = new Map(view.offers.flatMap((o) => o.keys.map((key) => [`${o.from.id}\n${key}`, o.to] as const)));
  const listening = listeningWords(view.self.listening) as BoardSnapshot["self"]["listening"];
  return {
    self: {
      id: view.self.id ?? "",
      ...(view.self.label === undefined ? {} : { label: view.self.label }),
      joined: view.self.joined,
      listening,
    },
    sessions: view.sessions.map((s) => ({
      id: s.id,
      label: s.label,
      state: s.state,
      listening: listeningWords(s.listening) as BoardSnapshot["sessions"][number]["listening"],
      unread: s.unread ?? 0,
      unreadAtLeast: s.unreadAtLeast,
      claims: s.claims,
      observed: s.observed,
      cwd: s.cwd,
      heartbeatAgeMs: Math.max(0, nowMs - s.heartbeatMs),
      self: s.self,
    })),
    inbox: inboxRows(preview),
    inboxFiles: preview?.files,
    claims: view.sessions.flatMap((s) => {
      if (s.state !== "active") return [];
      const observed = new Set(s.observed);
      return s.claims.map((key) => ({
        key,
        ownerId: s.id,
        ownerLabel: s.label,
        own: s.self,
        observed: observed.has(key),
        offeredTo: offered.get(`${s.id}\n${key}`),
      }));
    }),
    offers: view.offers,
  };
}

/** Throws the bus's own description when the snapshot fails; a failed peek shows no mail. */
export function readBoardSnapshot(engine: BusEngine): BoardSnapshot {
  const view = engine.snapshot();
  if (view.isErr()) throw new Error(describeBusError(view.error));
  return boardSnapshot(view.value, engine.peek(inboxLimitMax).unwrapOr(undefined), Date.now());
}

/** The same read in steps: a page of claims/ per step, and the peek with the last. */
export function readBoardSnapshotSteps(engine: BusEngine): SnapshotRead {
  const steps = engine.snapshotSteps();
  if (steps.isErr()) throw new Error(describeBusError(steps.error));
  const read = steps.value;
  return {
    step() {
      const view = read.step();
      if (view.isErr()) {
        read.cancel();
        throw new Error(describeBusError(view.error));
      }
      if (view.value === undefined) return undefined;
      return boardSnapshot(view.value, engine.peek(inboxLimitMax).unwrapOr(undefined), Date.now());
    },
    cancel: () => read.cancel(),
  };
}
