// session_mail_ask: write the ask, then wait for its answer, the clock, the target or the user.
// The wait is kept in the waits, where the delivery of its answer, the poll and a shutdown find it.
import { err, ok, type Result } from "neverthrow";
import type { TimerHandle } from "../../../ports/shared/clock.js";
import type { Address } from "../address.js";
import { askProgressIntervalMs, askWaitMs } from "../limits.js";
import type { AskOutcome, MailContext } from "./context.js";
import type { Intake } from "./intake.js";
import type { Outbox, SendError, Sent } from "./outbox.js";
import type { Ownership } from "./ownership.js";
import type { Presence } from "./presence.js";
import type { Waits } from "./waits.js";

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

interface AskParts {
  waits: Waits;
  outbox: Outbox;
  intake: Intake;
  presence: Presence;
  ownership: Ownership;
}

/** `onProgress` hears whom the ask waits on and for how long: at once, then every askProgressIntervalMs. */
export function askAndWait(
  ctx: MailContext,
  parts: AskParts,
  to: string,
  body: string,
  signal: AskSignal | undefined,
  onProgress?: (progress: AskProgress) => void,
): Promise<AskResult> {
  const { waits } = parts;
  if (parts.ownership.guest()) return Promise.resolve(err({ kind: "not-owner" }));
  const written = parts.outbox.writeAsk(to, body);
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
      onProgress({ to: sent.envelope.to, waitedMs: first ? 0 : ctx.clock.now() - startedMs });
      progress = ctx.clock.setTimer(askProgressIntervalMs, () => report(false));
    };
    const finish = (outcome: AskOutcome) => {
      if (done) return;
      done = true;
      timer.cancel();
      progress?.cancel();
      signal?.removeEventListener("abort", onAbort);
      if (waits.waiting()?.id === sent.envelope.id) waits.setWaiting(undefined);
      if (outcome.kind !== "answered") waits.abandon(sent.envelope.id);
      parts.presence.write();
      resolve(ok({ sent, outcome }));
    };
    waits.setWaiting({ id: sent.envelope.id, to: sent.envelope.to, finish });
    signal?.addEventListener("abort", onAbort);
    if (signal?.aborted === true) finish({ kind: "aborted" });
    report(true);
    // The answer may already be waiting (a fast peer): look once before the first poll.
    parts.intake.scan();
  });
}
