// One loop guard for both halves: each extension counts the hops of the turn in progress its own
// way (mail that started or steered it, bus mail that raised it), and a send carries the higher of
// the two. Neither imports the other: over Pi's event bus, a send asks on this channel, and each
// loaded half raises the asked count to its own, synchronously (Pi's `emit` calls every handler
// before it returns). A half that is not loaded answers nothing, and a half alone reads its own.

/** The channel; its payload is a `TurnHopsQuestion`, changed in place by each answer. */
export const turnHopsChannel = "switchboard:turn-hops";

interface TurnHopsQuestion {
  hops: number;
}

interface EventBus {
  emit(channel: string, data: unknown): void;
  on(channel: string, handler: (data: unknown) => void): unknown;
}

function isQuestion(data: unknown): data is TurnHopsQuestion {
  return typeof data === "object" && data !== null && typeof (data as TurnHopsQuestion).hops === "number";
}

/** The highest count any half holds for the turn in progress (0 when none answers). */
export function askTurnHops(events: EventBus): number {
  const question: TurnHopsQuestion = { hops: 0 };
  events.emit(turnHopsChannel, question);
  return Number.isSafeInteger(question.hops) && question.hops > 0 ? question.hops : 0;
}

/** Answers every question with `own()`, this half's count without the other's (never the folded
 * count: two halves folding each other's would ask each other forever). */
export function answerTurnHops(events: EventBus, own: () => number): void {
  events.on(turnHopsChannel, (data) => {
    if (!isQuestion(data)) return;
    const hops = own();
    if (hops > data.hops) data.hops = hops;
  });
}
