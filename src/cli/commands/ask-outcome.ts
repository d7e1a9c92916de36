// How an ask from the shell ended: the answer's text on stdout (or one JSON object), and the exit code
// that says how (done, stopped, failed, no answer in time, target gone, interrupted).
import type { AskOutcome, Sent } from "../../domain/mail/engine/index.js";
import { sanitizeLines } from "../../domain/shared/text/sanitize.js";
import type { CliContext } from "../command.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { json } from "../format.js";

interface Ended {
  who: string;
  /** Why the wait was stopped from here, when it was. */
  why: "timeout" | "interrupted" | undefined;
  waitedMs: number;
}

export function askOutcome(ctx: CliContext, asked: { sent: Sent; outcome: AskOutcome }, ended: Ended): ExitCode {
  const { sent, outcome } = asked;
  const base = { id: sent.envelope.id, to: sent.envelope.to, from: sent.envelope.from, waitedMs: ended.waitedMs };
  if (outcome.kind === "answered") {
    const { status, body, id } = outcome.envelope;
    const code = status === "done" ? exitCodes.ok : status === "stopped" ? exitCodes.stopped : exitCodes.failed;
    if (ctx.json) ctx.term.out(json({ ...base, outcome: "answered", status, answerId: id, body }));
    else {
      // On a terminal no escape sequence the peer wrote reaches it; piped, the text goes out as written.
      const text = ctx.term.outIsTty ? sanitizeLines(body) : body;
      ctx.term.out(text.endsWith("\n") ? text : `${text}\n`);
      if (status !== "done")
        ctx.term.err(
          `switchboard: not an answer: ${ended.who}'s run ${status === "stopped" ? "was stopped" : "failed"}.\n`,
        );
    }
    return code;
  }
  const kind =
    outcome.kind === "timeout" || ended.why === "timeout"
      ? "timeout"
      : outcome.kind === "target-gone"
        ? "gone"
        : "interrupted";
  if (ctx.json) ctx.term.out(json({ ...base, outcome: kind }));
  const seconds = Math.round(ended.waitedMs / 1000);
  const later = "A later answer arrives in the shell's inbox (switchboard sent shows it).";
  switch (kind) {
    case "timeout":
      if (!ctx.json) ctx.term.err(`switchboard: no answer from ${ended.who} within ${seconds}s. ${later}\n`);
      return exitCodes.timeout;
    case "gone":
      if (!ctx.json) ctx.term.err(`switchboard: ${ended.who} stopped running before it answered.\n`);
      return exitCodes.gone;
    default:
      if (!ctx.json) ctx.term.err(`switchboard: stopped waiting. ${later}\n`);
      return exitCodes.interrupted;
  }
}
