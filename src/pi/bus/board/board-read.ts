// The engine's read-only view as the board draws it: one snapshot and a peek at the front of this
// session's inbox, adapted to plain rows. What the 1 s poll costs Pi's loop is one step of this (a
// page of claims/, or the last page and the view) and, on another turn, one screen.
import { describeBusError } from "../../../domain/bus/bus-errors.js";
import type { BusEngine, InboxPreview, StatusView } from "../../../domain/bus/engine/index.js";
import { inboxLimitMax } from "../../../domain/bus/limits.js";
import type { MailFact, MailFacts } from "../../shared/roster.js";
import { mailOnly } from "../roster.js";
import { listeningWords } from "../texts.js";
import type { BoardSnapshot, InboxRow, MailSide, SessionRow, SnapshotRead } from "./board-model.js";

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

function mailSide(fact: MailFact): MailSide {
  return {
    state: fact.state,
    stopped: fact.stopped,
    ...(fact.waitingOn === undefined ? {} : { waitingOn: fact.waitingOn }),
  };
}

/** The running sessions in this worktree that use the mailbox alone, as rows after the bus's. */
function mailOnlyRows(view: StatusView, mail: MailFacts): BoardSnapshot["sessions"] {
  return mailOnly(view, mail).map((fact) => ({
    id: fact.id,
    label: fact.name ?? fact.id.slice(0, 8),
    ...(fact.name === undefined ? {} : { name: fact.name }),
    state: "mail only",
    mail: mailSide(fact),
    listening: "not listening",
    unread: 0,
    claims: [],
    observed: [],
    cwd: fact.cwd,
    heartbeatAgeMs: 0,
    self: false,
  }));
}

function boardSnapshot(
  view: StatusView,
  preview: InboxPreview | undefined,
  nowMs: number,
  mail: MailFacts,
): BoardSnapshot {
  // Each offered claim by its holder and key: the recipient its row names.
  const offered = new Map(view.offers.flatMap((o) => o.keys.map((key) => [`${o.from.id}\n${key}`, o.to] as const)));
  const listening = listeningWords(view.self.listening) as BoardSnapshot["self"]["listening"];
  const pending = view.self.id === undefined ? undefined : mail.get(view.self.id)?.pending;
  return {
    self: {
      id: view.self.id ?? "",
      ...(view.self.label === undefined ? {} : { label: view.self.label }),
      joined: view.self.joined,
      listening,
    },
    ...(pending === undefined ? {} : { mailPending: pending }),
    sessions: [...view.sessions.map((s) => sessionRow(s, nowMs, mail.get(s.id))), ...mailOnlyRows(view, mail)],
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

function sessionRow(s: StatusView["sessions"][number], nowMs: number, fact: MailFact | undefined): SessionRow {
  const side = fact === undefined ? undefined : mailSide(fact);
  return {
    id: s.id,
    label: s.label,
    ...(s.name === undefined ? {} : { name: s.name }),
    state: s.state,
    ...(side === undefined ? {} : { mail: side }),
    listening: listeningWords(s.listening) as SessionRow["listening"],
    unread: s.unread ?? 0,
    unreadAtLeast: s.unreadAtLeast,
    claims: s.claims,
    observed: s.observed,
    cwd: s.cwd,
    heartbeatAgeMs: Math.max(0, nowMs - s.heartbeatMs),
    self: s.self,
  };
}

/** Throws the bus's own description when the snapshot fails; a failed peek shows no mail. */
export function readBoardSnapshot(engine: BusEngine, mail: () => MailFacts = () => new Map()): BoardSnapshot {
  const view = engine.snapshot();
  if (view.isErr()) throw new Error(describeBusError(view.error));
  return boardSnapshot(view.value, engine.peek(inboxLimitMax).unwrapOr(undefined), Date.now(), mail());
}

/** The same read in steps: a page of claims/ per step, and the peek with the last. */
export function readBoardSnapshotSteps(engine: BusEngine, mail: () => MailFacts = () => new Map()): SnapshotRead {
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
      return boardSnapshot(view.value, engine.peek(inboxLimitMax).unwrapOr(undefined), Date.now(), mail());
    },
    cancel: () => read.cancel(),
  };
}
