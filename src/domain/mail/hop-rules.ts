// The hop count of the current turn: a loop guard for chains of sessions waking each other.

export interface HopState {
  /** Highest hops + 1 among the envelopes that started or steered the turn. */
  count: number;
  /** A person (or RPC client, or a command's prompt) started or steered the turn. */
  inputSeen: boolean;
}

export const freshHops: HopState = { count: 0, inputSeen: false };

/** Any input event: the count is 0 for the rest of the run. */
export function onInput(_state: HopState): HopState {
  return { count: 0, inputSeen: true };
}

/** Mail that started or steered the turn (or a reply a listener took over) raises the count. */
export function onMailEntered(state: HopState, hops: number): HopState {
  if (state.inputSeen) return state;
  return { count: Math.max(state.count, hops + 1), inputSeen: false };
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

export function describeHopRefusal(refusal: HopRefusal): string {
  return `Refused: this turn is ${refusal.hops} hops into a chain of sessions waking each other, and the limit is ${refusal.limit}. Nothing was sent. A person typing in either session starts the count again.`;
}
