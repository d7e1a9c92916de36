// What a command is: its words, its help, its options (parsed by node:util's parseArgs) and the
// function that runs it.
import type { ExitCode } from "./exit-codes.js";
import type { Terminal } from "./terminal.js";

export interface OptionSpec {
  type: "string" | "boolean";
  short?: string;
  /** The value's name in the help (`--timeout <duration>`). */
  value?: string;
  multiple?: boolean;
  help: string;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CliContext {
  term: Terminal;
  /** `--json`: one JSON document on stdout (or one per line for a stream). */
  json: boolean;
  mailRoot: string;
  agentDir: string;
  /** Writes `switchboard: <message>` on stderr and returns `code`, for `return ctx.fail(…)`. */
  fail(code: ExitCode, message: string): ExitCode;
}

export interface Command {
  /** The words that name it: ["list"], ["bus", "send"]. */
  words: readonly string[];
  summary: string;
  /** The arguments after the words, as the help shows them: `<to> <text|->`. */
  args: string;
  /** What it does, in a few lines for --help. */
  description: string;
  /** At least one, run as written in a shell. */
  examples: readonly string[];
  options: Readonly<Record<string, OptionSpec>>;
  positionals: { min: number; max: number };
  run(input: { positionals: string[]; values: OptionValues }, ctx: CliContext): Promise<ExitCode> | ExitCode;
}
