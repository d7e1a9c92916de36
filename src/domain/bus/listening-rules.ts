// What new mail does to a listening session: the engine decides, the host delivers.
import type { MailNotice, NoticeMessage } from "../../ports/bus/bus-host.js";
import { clipCodePoints } from "../shared/text/code-points.js";
import type { BusMessage } from "./bus-files.js";
import { repeats } from "./inbox-read.js";
import { handoffBodyCharsMax, noticePreviewCharsMax } from "./limits.js";

/** What the session asked for at its last join: listen or not, and raise a turn or wait for one. */
export interface Listening {
  armed: boolean;
  wake: boolean;
}

/** busy: a run is in progress. raised: this engine raised a turn whose run has not settled yet.
 * hops: the turn's hop count, what this session's sends carry (see turnHopsAfter). */
export interface TurnState {
  busy: boolean;
  raised: boolean;
  hops: number;
}

/** The hop count of a turn this mail raises: one more than the most any of it carries (as mail
 * counts envelopes that start a turn). */
export function turnHopsAfter(current: number, messages: readonly BusMessage[]): number {
  return messages.reduce((most, message) => Math.max(most, message.hops + 1), current);
}

/** Mail that may wake this session, and mail that came `limit` hops or more into a chain of
 * sessions waking each other: that waits for a turn someone else starts (`heldHops`: the most any
 * of it carries, 0 when none is held). */
export function splitAtHopLimit(
  messages: readonly BusMessage[],
  limit: number,
): { wake: BusMessage[]; held: BusMessage[]; heldHops: number } {
  const wake = messages.filter((message) => message.hops < limit);
  const held = messages.filter((message) => message.hops >= limit);
  return { wake, held, heldHops: held.reduce((most, message) => Math.max(most, message.hops), 0) };
}

type MailAction =
  /** Not listening: the mail waits for `inbox`. */
  | "ignore"
  /** Report it with the next prompt. */
  | "next-turn"
  /** Raise one turn now. */
  | "raise"
  /** Raise one turn once the run in progress settles (never pushed into it), one for the burst. */
  | "after-run";

export function onNewMail(listening: Listening, turn: TurnState): MailAction {
  if (!listening.armed) return "ignore";
  if (!listening.wake) return "next-turn";
  return turn.busy || turn.raised ? "after-run" : "raise";
}

/** After a run settles with mail waiting to wake it: a stopped run raises nothing (the user just
 * stopped the agent); that mail goes with the next prompt. */
export function raiseAfterRun(aborted: boolean, listening: Listening): boolean {
  return !aborted && listening.armed && listening.wake;
}

function noticeMessage(message: BusMessage): NoticeMessage {
  const preview = clipCodePoints(
    message.text,
    message.kind === "handoff" ? handoffBodyCharsMax : noticePreviewCharsMax,
  );
  return {
    id: message.id,
    from: message.from,
    fromLabel: message.fromLabel,
    kind: message.kind,
    preview: preview.text,
    clipped: preview.clipped,
    paths: [...message.paths],
  };
}

/** One line per message, a repeat of an earlier one (see `repeats`) folded into its line's count. */
function foldRepeats(messages: readonly BusMessage[]): NoticeMessage[] {
  const lines: { first: BusMessage; line: NoticeMessage }[] = [];
  for (const message of messages) {
    const repeated = lines.find((l) => repeats(l.first, message));
    if (repeated === undefined) lines.push({ first: message, line: noticeMessage(message) });
    else {
      repeated.line.repeats = (repeated.line.repeats ?? 1) + 1;
      repeated.line.foldedIds = [...(repeated.line.foldedIds ?? []), message.id];
    }
  }
  return lines.map((l) => l.line);
}

export function buildNotice(
  delivery: MailNotice["delivery"],
  seq: number,
  messages: readonly BusMessage[],
): MailNotice {
  return {
    delivery,
    seq,
    messages: foldRepeats(messages),
    handoffs: messages.filter((message) => message.kind === "handoff").length,
  };
}
