// One roster for both halves. Each extension knows its own half of every session (the mailbox: name,
// busy or idle, whom it waits on; the bus: label, claims, listening mode), and a listing of either
// shows both in one line. Neither imports the other: over Pi's event bus, a listing asks on the
// other half's channel and that half fills in the answer synchronously (Pi's `emit` calls every
// handler before it returns). A half that is not loaded answers nothing, and a listing then shows
// its own half alone.

/** The bus announces this session's label here at every join and relabel, as { id, label }, and a
 * leave as { id, label: undefined }: the mailbox writes it into its running record, so mail reaches a
 * session by its bus label too. */
export const sessionLabelChannel = "session-label";
/** The mailbox's facts, asked by the bus. */
const mailRosterChannel = "switchboard:mail-roster";
/** The bus's facts, asked by the mailbox. */
export const busRosterChannel = "switchboard:bus-roster";

/** A running session as the mailbox sees it. */
export interface MailFact {
  id: string;
  name?: string;
  cwd: string;
  state: "idle" | "busy";
  /** Whom an ask of it waits on, by the name a person types (absent: nobody). */
  waitingOn?: string;
  stopped: boolean;
  self: boolean;
  /** This session's own mail not yet read by its model (on its own fact only). */
  pending?: number;
}

/** A live bus member as the bus sees it. */
export interface BusFact {
  id: string;
  label: string;
  claims: number;
  listening: "wake" | "next-turn" | "off";
  self: boolean;
}

/** Each half's facts by session id, as a listing of the other half holds them (empty: not loaded). */
export type MailFacts = ReadonlyMap<string, MailFact>;
export type BusFacts = ReadonlyMap<string, BusFact>;

interface EventBus {
  emit(channel: string, data: unknown): void;
  on(channel: string, handler: (data: unknown) => void): unknown;
}

interface Question<T> {
  answer?: T[];
}

/** The other half's facts by session id: empty when no half answered (not loaded, or it has none yet). */
function askRoster<T extends { id: string }>(events: EventBus, channel: string): Map<string, T> {
  const question: Question<T> = {};
  try {
    events.emit(channel, question);
  } catch {
    return new Map();
  }
  return new Map((Array.isArray(question.answer) ? question.answer : []).map((fact) => [fact.id, fact]));
}

/** Hears this process's label announcements: `heard(id, label)` for each well-formed one. */
export function onSessionLabel(events: EventBus, heard: (id: string, label: string | undefined) => void): void {
  events.on(sessionLabelChannel, (data) => {
    const { id, label } = (data ?? {}) as { id?: unknown; label?: unknown };
    if (typeof id === "string" && (label === undefined || typeof label === "string")) heard(id, label);
  });
}

/** Answers every question on `channel` with `facts()`; a half without facts leaves it unanswered. */
function answerRoster<T>(events: EventBus, channel: string, facts: () => T[] | undefined): void {
  events.on(channel, (data) => {
    if (typeof data !== "object" || data === null || (data as Question<T>).answer !== undefined) return;
    const answer = facts();
    if (answer !== undefined) (data as Question<T>).answer = answer;
  });
}

/** What the person of this session lets its mail do (the mailbox's mode), asked by the bus before
 * a wake: "accept" when the mailbox is not loaded. */
const mailModeChannel = "switchboard:mail-mode";

export function askMailMode(events: EventBus): string {
  const question: { mode?: unknown } = {};
  try {
    events.emit(mailModeChannel, question);
  } catch {
    return "accept";
  }
  return typeof question.mode === "string" ? question.mode : "accept";
}

export function answerMailMode(events: EventBus, mode: () => string | undefined): void {
  events.on(mailModeChannel, (data) => {
    if (typeof data !== "object" || data === null) return;
    const current = mode();
    if (current !== undefined) (data as { mode?: string }).mode = current;
  });
}

/** The bus's facts by session id, as the mailbox asks for them. */
export const askBusFacts = (events: EventBus) => askRoster<BusFact>(events, busRosterChannel);
/** The mailbox's facts by session id, as the bus asks for them. */
export const askMailFacts = (events: EventBus) => askRoster<MailFact>(events, mailRosterChannel);
export const answerBusFacts = (events: EventBus, facts: () => BusFact[] | undefined) =>
  answerRoster(events, busRosterChannel, facts);
export const answerMailFacts = (events: EventBus, facts: () => MailFact[] | undefined) =>
  answerRoster(events, mailRosterChannel, facts);
