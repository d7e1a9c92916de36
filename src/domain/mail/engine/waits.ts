// The asks this session sends, as far as others see them: the one ask waiting for its answer, the
// target of one being written (its record names it first), and the asks that stopped waiting.
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Address } from "../address.js";
import { rememberedIdsMax } from "../limits.js";
import type { WaitingAsk } from "./context.js";

export interface Waits {
  waiting(): WaitingAsk | undefined;
  /** The ask now waiting, or none (it ended). */
  setWaiting(waiting: WaitingAsk | undefined): void;
  /** Whom this session's record says it waits on: the waiting ask's target, or the one being written. */
  waitingOn(): Address | undefined;
  /** The record names the target before the ask is published (undefined once it is written). */
  announce(target: Address | undefined): void;
  /** This ask of ours stopped waiting: a late answer is delivered as mail. */
  abandon(askId: string): void;
  abandoned(askId: string): boolean;
  /** Lets a waiting ask go (shutdown, a replaced root). */
  abort(): void;
}

export function createWaits(): Waits {
  let waiting: WaitingAsk | undefined;
  let asking: Address | undefined;
  const abandoned: BoundedIdSet = createBoundedIdSet(rememberedIdsMax);
  return {
    waiting: () => waiting,
    setWaiting(next) {
      waiting = next;
    },
    waitingOn: () => waiting?.to ?? asking,
    announce(target) {
      asking = target;
    },
    abandon: (askId) => abandoned.add(askId),
    abandoned: (askId) => abandoned.has(askId),
    abort: () => waiting?.finish({ kind: "aborted" }),
  };
}
