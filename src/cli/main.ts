// The `switchboard` program: runs the command its arguments name and exits with its code. Anything
// unexpected is one line on stderr and exit 1, never a stack trace (SWITCHBOARD_DEBUG=1 shows it).
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { runProgram } from "./program.js";
import { nodeTerminal } from "./terminal.js";

const term = nodeTerminal();

function unexpected(e: unknown): ExitCode {
  if (term.env.SWITCHBOARD_DEBUG === "1") term.err(`${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  term.err(`switchboard: ${e instanceof Error ? e.message : String(e)}\n`);
  return exitCodes.error;
}

// The engines' timers and watchers end with their sessions; exit once what was written is out (a
// stdout whose reader went away calls back at once, with its error).
const exit = (code: ExitCode) =>
  process.stdout.write("", () => process.stderr.write("", () => process.exit(term.outFailed ? exitCodes.error : code)));

// Built as CommonJS (no top-level await): Node starts a CommonJS program a few ms sooner than an ES module.
runProgram(process.argv.slice(2), term).then(exit, (e: unknown) => exit(unexpected(e)));
