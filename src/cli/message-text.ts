// A message's text from the command line: the argument as given, or stdin for `-`, which must be
// UTF-8 and within the limit of the half it goes to.
import type { CliContext } from "./command.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";

/** The text, or (after saying why) the usage exit code; `tooLong` ends "the message on stdin is …". */
export async function messageText(
  ctx: CliContext,
  text: string,
  limit: { maxBytes: number; tooLong: string },
): Promise<string | ExitCode> {
  if (text !== "-") return text;
  const read = await ctx.term.readStdin(limit.maxBytes);
  if (typeof read === "string") return read;
  const why = read.problem === "too-long" ? limit.tooLong : "not UTF-8 text";
  return ctx.fail(exitCodes.usage, `the message on stdin is ${why}.`);
}
