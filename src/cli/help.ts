// --help: the program's (every command, the exit codes, where it looks) and each command's (its
// arguments, options and an example).
import type { Command, OptionSpec } from "./command.js";

const exitLines = [
  "0    done (an ask: answered with status done)",
  "1    could not (an ambiguous recipient, a disk error, a problem doctor found)",
  "2    bad usage",
  "3    ask: answered, but its run was stopped",
  "4    ask: answered, but its run failed",
  "5    ask: no answer within --timeout",
  "6    the target is not running (no running session by that name), or stopped before it answered",
  "7    refused: hop limit, a wait that would deadlock, a session refusing mail",
  "130  interrupted (Ctrl-C)",
];

export function programHelp(commands: readonly Command[]): string {
  const names = commands.map((c) => c.words.join(" "));
  const wide = Math.max(...names.map((n) => n.length));
  const list = commands.map((c, i) => `  ${names[i]!.padEnd(wide)}  ${c.summary}`);
  return [
    "switchboard: the Pi sessions on this machine, their mail and their claims, from a shell.",
    "",
    "Usage: switchboard <command> [arguments] [--json] [--help]",
    "",
    "Commands:",
    ...list,
    "",
    "Exit codes:",
    ...exitLines.map((l) => `  ${l}`),
    "",
    "The mail root is $XDG_STATE_HOME/pi-session-mail (else ~/.local/state/pi-session-mail); the bus",
    "lives under Pi's agent dir ($PI_CODING_AGENT_DIR, else ~/.pi/agent). NO_COLOR turns colour off.",
    "Run switchboard <command> --help for its options and an example.",
    "",
  ].join("\n");
}

/** The commands of a group (`bus`): what `switchboard bus` and `switchboard bus --help` show. */
export function groupHelp(group: string, commands: readonly Command[]): string {
  const names = commands.map((c) => c.words.join(" "));
  const wide = Math.max(...names.map((n) => n.length));
  return [
    `Usage: switchboard ${group} <command> [arguments] [--json] [--help]`,
    "",
    "Commands:",
    ...commands.map((c, i) => `  ${names[i]!.padEnd(wide)}  ${c.summary}`),
    "",
    `Run switchboard ${group} <command> --help for its options and an example.`,
    "",
  ].join("\n");
}

function optionLine(name: string, spec: OptionSpec): [string, string] {
  const short = spec.short === undefined ? "    " : `-${spec.short}, `;
  const value = spec.type === "string" ? ` <${spec.value ?? "value"}>` : "";
  return [`${short}--${name}${value}`, spec.help];
}

export function commandHelp(command: Command, common: Readonly<Record<string, OptionSpec>>): string {
  const name = command.words.join(" ");
  const options = Object.entries({ ...command.options, ...common }).map(([n, s]) => optionLine(n, s));
  const wide = Math.max(...options.map(([left]) => left.length));
  return [
    `Usage: switchboard ${name}${command.args === "" ? "" : ` ${command.args}`} [options]`,
    "",
    command.description,
    "",
    "Options:",
    ...options.map(([left, right]) => `  ${left.padEnd(wide)}  ${right}`),
    "",
    command.examples.length === 1 ? "Example:" : "Examples:",
    ...command.examples.map((e) => `  $ ${e}`),
    "",
  ].join("\n");
}
