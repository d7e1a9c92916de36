// Why a send or an ask from the shell was refused, in the shell's words, and the exit code of each.
import { describeAddressError } from "../domain/mail/addressing.js";
import type { SendError } from "../domain/mail/engine/index.js";
import { describeHopRefusal } from "../domain/mail/hop-rules.js";
import { labelFieldCharsMax } from "../domain/mail/limits.js";
import { describeStoreError } from "../domain/mail/store-errors.js";
import { sanitizeField } from "../domain/shared/text/sanitize.js";
import { kib } from "../domain/shared/text/utf8.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);

/** A sentence of the domain's, continuing the `switchboard:` prefix. */
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The words and exit code of a refused send or ask; `who` names the target as the person typed it. */
export function describeRefusal(error: SendError, who: string): { text: string; code: ExitCode } {
  const name = field(who);
  switch (error.kind) {
    case "address":
      // No running session by that name: the target is not there, as for one not running.
      return {
        text: describeAddressError(error.error),
        code:
          error.error.kind === "not-found"
            ? exitCodes.gone
            : error.error.kind === "empty"
              ? exitCodes.usage
              : exitCodes.error,
      };
    case "invalid-address":
      return { text: `"${field(error.to)}" is not a session address.`, code: exitCodes.error };
    case "empty-body":
      return { text: "the message is empty.", code: exitCodes.usage };
    case "body-too-large":
      return { text: `the message is ${kib(error.bytes)}; the limit is ${kib(error.max)}.`, code: exitCodes.usage };
    case "hop-limit":
      return {
        text: lowerFirst(describeHopRefusal(error, "the session this runs in")),
        code: exitCodes.refused,
      };
    case "not-running":
      return {
        text: `${name} is not running, so nobody would answer. switchboard send leaves it a request it reads when it starts.`,
        code: exitCodes.gone,
      };
    case "target-stopped":
      return {
        text: `refused: ${name} is suspended (Ctrl-Z), so it cannot answer now; fg in its terminal resumes it.`,
        code: exitCodes.refused,
      };
    case "refused":
      return {
        text: `refused: ${name} takes no mail now (its person typed /mailbox refuse). Nothing was sent.`,
        code: exitCodes.refused,
      };
    case "deadlock":
      return {
        text: `refused: ${name} waits on an answer from the session this runs in; asking it would deadlock.`,
        code: exitCodes.refused,
      };
    case "ask-waiting":
    case "not-owner":
    case "no-session":
      // The shell's own session: a fresh slot never waits, and a guest slot is retried before this.
      return { text: "the shell's mailbox could not be opened.", code: exitCodes.error };
    case "store":
      return { text: `nothing was sent (${describeStoreError(error.error)}).`, code: exitCodes.error };
    default: {
      const never: never = error;
      return never;
    }
  }
}
