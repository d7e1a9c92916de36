// The program: finds the command its first words name, parses the rest with node:util's parseArgs,
// and runs it; usage errors and --help are answered here, the same way for every command.
import { agentDirFromEnv } from "../adapters/node/agent-dir.js";
import { mailRootFromEnv } from "../adapters/node/mail-root.js";
import type { CliContext, Command, OptionValues } from "./command.js";
import { commands } from "./commands/index.js";
import { type ExitCode, exitCodes } from "./exit-codes.js";
import { commandHelp, groupHelp, programHelp } from "./help.js";
import { unusableRoot } from "./mail-side.js";
import type { Terminal } from "./terminal.js";

const version = "0.1.0";

// parseArgs taken from node:util itself: an ES import of node:util evaluates every one of its
// exports, loading a dozen internal modules (worker_threads among them) this program never uses.
const { parseArgs } = process.getBuiltinModule("node:util");

/** The options every command takes. */
const common = {
  json: { type: "boolean", help: "print JSON for scripts instead of text for people" },
  help: { type: "boolean", short: "h", help: "show this help" },
} as const;

/** The commands whose first word is `word`, when they take more than one (`bus send`, `bus inbox`). */
const groupOf = (word: string | undefined) => commands.filter((c) => c.words.length > 1 && c.words[0] === word);

/** The command named by the longest run of leading words, and the arguments after them. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | undefined {
  const matches = commands.filter((c) => c.words.every((word, i) => argv[i] === word));
  const best = matches.sort((a, b) => b.words.length - a.words.length)[0];
  return best === undefined ? undefined : { command: best, rest: argv.slice(best.words.length) };
}

export async function runProgram(argv: readonly string[], term: Terminal): Promise<ExitCode> {
  const fail = (code: ExitCode, message: string) => {
    term.err(`switchboard: ${message}\n`);
    return code;
  };
  const first = argv[0];
  if (first === undefined || first === "help" || first === "--help" || first === "-h") {
    const asked = first === "help" ? argv.slice(1) : [];
    const topic = findCommand(asked);
    const group = topic === undefined ? groupOf(asked[0]) : [];
    if (group.length > 0) term.out(groupHelp(asked[0]!, group));
    else if (topic !== undefined) term.out(commandHelp(topic.command, common));
    else if (asked.length === 0) term.out(programHelp(commands));
    else return fail(exitCodes.usage, `unknown command "${asked.join(" ")}". Run switchboard --help for the list.`);
    return exitCodes.ok;
  }
  if (first === "--version" || first === "-V") {
    term.out(`${version}\n`);
    return exitCodes.ok;
  }
  if (first.startsWith("-"))
    return fail(
      exitCodes.usage,
      `the command comes first, then its options (switchboard list ${first}). Run switchboard --help.`,
    );
  const found = findCommand(argv);
  if (found === undefined) {
    const group = groupOf(first);
    const second = argv[1];
    if (group.length > 0 && (second === "--help" || second === "-h")) {
      term.out(groupHelp(first, group));
      return exitCodes.ok;
    }
    if (group.length > 0 && (second === undefined || second.startsWith("-"))) {
      const names = group.map((c) => `switchboard ${c.words.join(" ")}`).join(", ");
      return fail(exitCodes.usage, `${first} needs a command: ${names}. Run switchboard ${first} --help.`);
    }
    const what = group.length > 0 ? `${first} ${second}` : first;
    return fail(exitCodes.usage, `unknown command "${what}". Run switchboard --help for the list.`);
  }
  const { command, rest } = found;
  const name = command.words.join(" ");
  const parsed = parse(command, rest);
  if (typeof parsed === "string") return fail(exitCodes.usage, `${parsed}. Run switchboard ${name} --help.`);
  if (parsed.values.help === true) {
    term.out(commandHelp(command, common));
    return exitCodes.ok;
  }
  const ctx: CliContext = {
    term,
    json: parsed.values.json === true,
    mailRoot: mailRootFromEnv(term.env),
    agentDir: agentDirFromEnv(term.env),
    fail,
  };
  // A mail root that cannot hold mail fails every command but the one that explains it.
  const unusable = name === "doctor" ? undefined : unusableRoot(ctx.mailRoot);
  if (unusable !== undefined) return fail(exitCodes.error, unusable);
  return command.run(parsed, ctx);
}

/** The values and positionals of `args`, or what is wrong with them. */
function parse(command: Command, args: string[]): { positionals: string[]; values: OptionValues } | string {
  const options = Object.fromEntries(
    Object.entries({ ...command.options, ...common }).map(([key, spec]) => [
      key,
      {
        type: spec.type,
        ...("short" in spec && spec.short ? { short: spec.short } : {}),
        multiple: "multiple" in spec && spec.multiple === true,
      },
    ]),
  );
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    // parseArgs says what is wrong in a sentence of its own (ERR_PARSE_ARGS_*); only its first line,
    // and for an unknown option a shorter one (its own goes on about positionals).
    const message = (e instanceof Error ? e.message : String(e)).split("\n")[0]!.replace(/\.$/, "");
    const unknown = /^Unknown option '([^']*)'/.exec(message)?.[1];
    return unknown === undefined ? message : `unknown option "${unknown}" (text that starts with "-" goes after "--")`;
  }
  const values = parsed.values as OptionValues;
  if (values.help === true) return { positionals: parsed.positionals, values };
  const { min, max } = command.positionals;
  const count = parsed.positionals.length;
  if (count < min) return `missing ${command.args.split(" ").slice(count, min).join(" ")}`;
  if (count > max) return `unexpected argument "${parsed.positionals[max]}" (quote text with spaces)`;
  return { positionals: parsed.positionals, values };
}
