// session_mail_ask: write the ask, then wait for its answer, the clock, the target or the user.
import { err, ok, type Result } from "neverthrow";
import type { TimerHandle } from "../../../ports/shared/clock.js";
import type { Address } from "../address.js";
import { askProgressIntervalMs, askWaitMs } from "../limits.js";
import type { AskOutcome, EngineContext } from "./context.js";
import { scanInbox } from "./intake.js";
import { type SendError, type Sent, writeAsk } from "./outbox.js";
import { writeOwnRecord } from "./presence.js";

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

export function ask(
  ctx: EngineContext,
  to: string,
  body: string,
  signal: AskSignal | undefined,
  onProgress?: (progress: AskProgress) => void,
): Promise<Result<{ sent: Sent; outcome: AskOutcome }, SendError>> {
  const { state } = ctx;
  if (state.guest) return Promise.resolve(err({ kind: "not-owner" }));
  const written = writeAsk(ctx, to, body);
  if (written.isErr()) return Promise.resolve(err(written.error));
  const sent = written.value;
  return new Promise((resolve) => {
    let done = false;
    const timer = ctx.clock.setTimer(askWaitMs, () => finish({ kind: "timeout" }));
    const onAbort = () => finish({ kind: "aborted" });
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
      if (state.waiting?.id === sent.envelope.id) state.waiting = undefined;
      if (outcome.kind !== "answered") state.abandonedAsks.add(sent.envelope.id);
      writeOwnRecord(ctx);
      ctx.refreshFooter();
      resolve(ok({ sent, outcome }));
    };
    state.waiting = { id: sent.envelope.id, to: sent.envelope.to as Address, finish };
    signal?.addEventListener("abort", onAbort);
    if (signal?.aborted === true) finish({ kind: "aborted" });
    report(true);
    // The answer may already be waiting (a fast peer): look once before the first poll.
    scanInbox(ctx);
  });
}
