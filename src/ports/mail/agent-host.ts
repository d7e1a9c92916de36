export interface InjectedMail {
  /** The label-framed text the model reads. */
  content: string;
  /** What the host keeps with the message, so it can tell the engine when it was read. */
  details: { mailId: string; kind: string; from: string; path: string };
}

export interface InjectOptions {
  triggerTurn: boolean;
  deliverAs: "steer" | "followUp";
}

export type NoticeLevel = "info" | "warning" | "error";

/** The agent session the engine serves: Pi in production, a scripted fake agent in the simulator. */
export interface AgentHost {
  inject(mail: InjectedMail, options: InjectOptions): void;
  /** A notice already rendered by the engine's one renderer (domain/mail/mail-notice.ts): sanitized,
   * bounded; `kind` names which (its `kind` there), for a host that shows only some. */
  notify(text: string, level: NoticeLevel, kind: string): void;
  /** The footer text, or undefined to clear it. */
  setStatus(text: string | undefined): void;
  /** Whether mail with this id already entered the conversation (a restart must not show it twice). */
  hasShown(mailId: string): boolean;
  /** The hop count another part of the session holds for the turn in progress (the bus's, for a
   * turn its mail raised): the turn's count is the higher of it and the mailbox's own. Absent: 0. */
  peerTurnHops?(): number;
}
