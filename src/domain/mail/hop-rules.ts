// The hop count of the current turn: a loop guard for chains of sessions waking each other.

export interface HopState {
  /** Highest hops + 1 among the envelopes that started or steered the turn since the last input. */
  count: number;
}

export const freshHops: HopState = { count: 0 };

/** Any input event (a person, an RPC client, a command's prompt): the count is 0 again. */
export function onInput(_state: HopState): HopState {
  return { count: 0 };
}

/** Mail that started or steered the turn (or a reply a listener took over) raises the count, also
 * after an input: typing once must not let a chain of sessions escape the loop guard for the rest
 * of the run (the stricter reading of "the envelopes that started the turn or steered into it"). */
export function onMailEntered(state: HopState, hops: number): HopState {
  return { count: Math.max(state.count, hops + 1) };
}

/** The count starts afresh when the run settles. */
export function onSettled(_state: HopState): HopState {
  return freshHops;
}

export type HopRefusal = { kind: "hop-limit"; hops: number; limit: number };

/** Sends and asks are refused, before anything is written, once the count reached the limit. */
export function checkHopLimit(state: HopState, limit: number): HopRefusal | undefined {
  return state.count >= limit ? { kind: "hop-limit", hops: state.count, limit } : undefined;
}

/** `who` names what is that far into the chain: this turn, or (for a program a session's tool ran)
 * the session it runs in. */
export function describeHopRefusal(refusal: HopRefusal, who = "this turn"): string {
  return `Refused: ${who} is ${refusal.hops} hops into a chain of sessions waking each other, and the limit is ${refusal.limit}. Nothing was sent. A person typing in either session starts the count again.`;
}
