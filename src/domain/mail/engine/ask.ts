// session_mail_ask: write the ask, then wait for its answer, the clock, the target or the user.
// Owns the one ask waiting, the target of one being written, and the asks that stopped waiting.
import { err, ok, type Result } from "neverthrow";
import type { TimerHandle } from "../../../ports/shared/clock.js";
import { type BoundedIdSet, createBoundedIdSet } from "../../shared/bounded-id-set.js";
import type { Address } from "../address.js";
import { askProgressIntervalMs, askWaitMs, rememberedIdsMax } from "../limits.js";
import type { AskOutcome, EngineContext, WaitingAsk } from "./context.js";
import type { SendError, Sent } from "./outbox.js";

export interface AskSignal {
  readonly aborted: boolean;
  addEventListener(type: "abort", listener: () => void): void;
  removeEventListener(type: "abort", listener: () => void): void;
}

/** Whom a waiting ask waits on, and for how long so far. */
export interface AskProgress {
  to: Address;
  waitedMs: number;
}

export type AskResult = Result<{ sent: Sent; outcome: AskOutcome }, SendError>;

export interface Asks {
  /** `onProgress` hears whom the ask waits on and for how long: at once, then every askProgressIntervalMs. */
  ask(
    to: string,
    body: string,
    signal: AskSignal | undefined,
    onProgress?: (progress: AskProgress) => void,
  ): Promise<AskResult>;
  waiting(): WaitingAsk | undefined;
  /** Whom this session's record says it waits on: the waiting ask's target, or the one being written. */
  waitingOn(): Address | undefined;
  /** The record names the target before the ask is published (undefined once it is written). */
  announce(target: Address | undefined): void;
  /** This ask of ours stopped waiting: a late answer is delivered as mail. */
  abandoned(askId: string): boolean;
  /** Lets a waiting ask go (shutdown, a replaced root). */
  abort(): void;
}

interface AskState {
  waiting: WaitingAsk | undefined;
  asking: Address | undefined;
  abandoned: BoundedIdSet;
}

export function createAsks(ctx: EngineContext): Asks {
  const s: AskState = { waiting: undefined, asking: undefined, abandoned: createBoundedIdSet(rememberedIdsMax) };
  return {
    ask: (to, body, signal, onProgress) => ask(ctx, s, to, body, signal, onProgress),
    waiting: () => s.waiting,
    waitingOn: () => s.waiting?.to ?? s.asking,
    announce(target) {
      s.asking = target;
    },
    abandoned: (askId) => s.abandoned.has(askId),
    abort: () => s.waiting?.finish({ kind: "aborted" }),
  };
}

function ask(
  ctx: EngineContext,
  s: AskState,
  to: string,
  body: string,
  signal: AskSignal | undefined,
  onProgress?: (progress: AskProgress) => void,
): Promise<AskResult> {
  if (ctx.ownership.guest()) return Promise.resolve(err({ kind: "not-owner" }));
  const written = ctx.outbox.writeAsk(to, body);
  if (written.isErr()) return Promise.resolve(err(written.error));
  const sent = written.value;
  return new Promise((resolve) => {
    let done = false;
    const timer = ctx.clock.setTimer(askWaitMs, () => finish({ kind: "timeout" }));
    const onAbort = () => ctx.event(() => finish({ kind: "aborted" }));
    // Progress runs on the engine's clock: once now, then every interval, until the wait ends.
    const startedMs = ctx.clock.now();
    let progress: TimerHandle | undefined;
    // The first report says the ask was just written (0 ms), whatever the clock moved meanwhile.
    const report = (first: boolean) => {
      if (done || onProgress === undefined) return;
      onProgress({ to: sent.envelope.to as Address, waitedMs: first ? 0 : ctx.clock.now() - startedMs });
      progress = ctx.clock.setTimer(askProgressIntervalMs, () => report(false));
    };
    const finish = (outcome: AskOutcome) => {
      if (done) return;
      done = true;
      timer.cancel();
      progress?.cancel();
      signal?.removeEventListener("abort", onAbort);
      if (s.waiting?.id === sent.envelope.id) s.waiting = undefined;
      if (outcome.kind !== "answered") s.abandoned.add(sent.envelope.id);
      ctx.presence.write();
      resolve(ok({ sent, outcome }));
    };
    s.waiting = { id: sent.envelope.id, to: sent.envelope.to as Address, finish };
    signal?.addEventListener("abort", onAbort);
    if (signal?.aborted === true) finish({ kind: "aborted" });
    report(true);
    // The answer may already be waiting (a fast peer): look once before the first poll.
    ctx.intake.scan();
  });
}
