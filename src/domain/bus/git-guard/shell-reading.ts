// The git invocations of one `bash` command, read from the shell words a well-kept parser made of it
// (the caller hands its parse in: the domain imports no package). Good enough to find `git` through
// env prefixes, wrappers, `cd`, `-C`, chains, subshells and `sh -c '…'`; where the words do not say
// what the shell will run (a variable, a substitution, a here-document), the call is read as unknown
// and the guard lets it through: a guard that guesses would block work it does not understand.
import { shellNestingMax } from "../limits.js";
import { joinLexical } from "../posix-path.js";

/** A token as shell-quote's parse gives it: a word, a control or redirect operator, a glob, or a
 * comment that runs to the end of the text. */
export type ShellToken = string | { op: string; pattern?: string } | { comment: string };

/** What the parser put in place of `$NAME`, `${…}` and `$(…)`: a word holding it is not known. */
export const dynamicMark = "\u0000";

type ShellParse = (text: string) => ShellToken[];

/** A word of a git call: its text, or undefined when the shell makes it up as it runs. */
export type Word = string | undefined;

export interface GitCall {
  /** Where git starts (absolute, lexical), or undefined when a `cd` went where the text does not say. */
  dir: string | undefined;
  /** The words after `git`. */
  args: Word[];
  /** The token index of each of `args`, and of the `git` word: what a rewrite edits. Absent for a
   * call the command cannot be written back around (inside `sh -c`, or a command with lines). */
  at?: { git: number; args: number[] };
  /** Git's own environment (GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE) set for it: it works elsewhere. */
  retargeted: boolean;
}

export interface CommandReading {
  calls: GitCall[];
  /** The tokens, when the command can be written back from them with the same meaning: one line, no
   * comment, glob, variable, substitution or here-document. */
  tokens?: ShellToken[];
}

const separators = new Set(["&&", "||", ";", "|", "|&", "&", ";;", ";&", ";;&"]);
const redirects = new Set([">", ">>", "<", ">&", "<&", "&>", "&>>", ">|", "<>", "<<<"]);
const hereDocuments = new Set(["<<", "<<-"]);
const opening = new Set(["(", "<(", ">("]);
const shells = new Set(["sh", "bash", "dash", "zsh", "ksh"]);
/** Commands that run the command after them (their own options skipped as written below). */
const wrappers = new Set(["command", "exec", "time", "nohup", "builtin"]);
const retargeting = new Set(["GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR"]);
const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/;

const isWord = (token: ShellToken | undefined): token is string => typeof token === "string";
const known = (word: string): Word => (word.includes(dynamicMark) || word.includes("`") ? undefined : word);
const baseName = (word: string) => word.slice(word.lastIndexOf("/") + 1);

/** A word the shell reads the same when written back quoted: no tilde, brace or bracket expansion
 * that the parser kept as text (it cannot say whether they were quoted, so any such word counts). */
function plainWord(word: string): boolean {
  if (known(word) === undefined || word.includes("~")) return false;
  if (word.includes("{") && (word.includes(",") || word.includes(".."))) return false;
  return !(word.includes("[") && !/\s/.test(word));
}

/** Bash reads a backslash before a newline as no character at all, and a newline as the end of a
 * command; shell-quote reads both as space. So the text is given `;` before each newline (inside
 * quotes it only adds a character to a word), and a comment's rest is read again from its newline. */
function lines(command: string): string {
  return command.split("\\\n").join("").split("\n").join(";\n");
}

export function readCommand(command: string, cwd: string, parse: ShellParse): CommandReading {
  const calls: GitCall[] = [];
  const tokens = parse(lines(command));
  const plain = readTokens(tokens, cwd, parse, 0, calls, true);
  const oneLine = !command.trimEnd().includes("\n") && !command.includes("\r");
  if (plain && oneLine) return { calls, tokens };
  for (const call of calls) delete call.at;
  return { calls };
}

/** Reads `tokens` into `calls`; whether every token was plain (see CommandReading.tokens). */
function readTokens(
  tokens: readonly ShellToken[],
  cwd: string,
  parse: ShellParse,
  depth: number,
  calls: GitCall[],
  indexed: boolean,
): boolean {
  let dir: string | undefined = cwd;
  const outer: (string | undefined)[] = [];
  let plain = true;
  let words: { word: string; at: number }[] = [];
  const end = () => {
    dir = readSimple(words, dir, parse, depth, calls, indexed);
    words = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as ShellToken;
    if (typeof token === "string") {
      if (!plainWord(token)) plain = false;
      words.push({ word: token, at: i });
      continue;
    }
    if ("comment" in token) {
      // The comment ends at its line: what follows is read as a command line of its own.
      end();
      const rest = token.comment.indexOf("\n");
      if (rest >= 0) readTokens(parse(token.comment.slice(rest + 1)), dir ?? cwd, parse, depth, calls, false);
      return false;
    }
    if (token.op === "glob") {
      plain = false;
      words.push({ word: dynamicMark, at: i });
    } else if (redirects.has(token.op)) {
      // The target is a file, not an argument; a digit word just before is the descriptor.
      const last = words.at(-1);
      if (last !== undefined && /^\d+$/.test(last.word) && last.at === i - 1) words.pop();
      if (!isWord(tokens[i + 1]) || known(tokens[i + 1] as string) === undefined) plain = false;
      i++;
    } else if (hereDocuments.has(token.op)) {
      // The lines after are the document, not commands: nothing past here is read.
      end();
      return false;
    } else if (opening.has(token.op)) {
      end();
      outer.push(dir);
    } else if (token.op === ")") {
      end();
      dir = outer.length > 0 ? outer.pop() : dir;
    } else if (separators.has(token.op)) {
      end();
    } else {
      plain = false;
      end();
    }
  }
  end();
  return plain;
}

/** One simple command: env assignments, wrappers, then git, a shell with `-c`, or `cd`. Returns the
 * folder the commands after it start in. */
function readSimple(
  words: readonly { word: string; at: number }[],
  dir: string | undefined,
  parse: ShellParse,
  depth: number,
  calls: GitCall[],
  indexed: boolean,
): string | undefined {
  let i = 0;
  let retargeted = false;
  for (; i < words.length; i++) {
    const word = words[i]?.word as string;
    const name = assignment.exec(word)?.[1];
    if (name !== undefined) {
      if (retargeting.has(name)) retargeted = true;
      continue;
    }
    if (word === "env") i = skipEnvOptions(words, i, (n) => (retargeted ||= retargeting.has(n)));
    else if (!wrappers.has(word)) break;
  }
  const command = words[i];
  if (command === undefined || known(command.word) === undefined) return dir;
  const rest = words.slice(i + 1);
  const name = baseName(command.word);
  if (name === "cd" || name === "pushd") return changedDir(dir, rest[0]?.word);
  if (name === "popd") return undefined;
  if (name === "git") {
    const args = rest.map((w) => known(w.word));
    const at = indexed ? { git: command.at, args: rest.map((w) => w.at) } : undefined;
    calls.push({ dir, args, retargeted, ...(at === undefined ? {} : { at }) });
    return dir;
  }
  if (shells.has(name) && depth < shellNestingMax && dir !== undefined) {
    const flag = rest.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w.word));
    const script = flag >= 0 ? rest[flag + 1]?.word : undefined;
    if (script !== undefined && known(script) !== undefined) {
      readTokens(parse(lines(script)), dir, parse, depth + 1, calls, false);
    }
  }
  return dir;
}

/** `env`'s own options and assignments; returns the index of the last word they take. */
function skipEnvOptions(words: readonly { word: string }[], at: number, assigned: (name: string) => void): number {
  let i = at + 1;
  for (; i < words.length; i++) {
    const word = words[i]?.word as string;
    const name = assignment.exec(word)?.[1];
    if (name !== undefined) assigned(name);
    else if (word === "-C" || word === "--chdir") {
      // git then starts in a folder of env's choosing: read as git's target set elsewhere.
      assigned("GIT_DIR");
      i++;
    } else if (word === "-u" || word === "--unset") i++;
    else if (!word.startsWith("-")) break;
  }
  return i - 1;
}

function changedDir(dir: string | undefined, to: string | undefined): string | undefined {
  if (dir === undefined || to === undefined) return undefined;
  if (known(to) === undefined || to === "-" || to.startsWith("~")) return undefined;
  return to.startsWith("/") ? joinLexical("/", to.split("/")) : joinLexical(dir, to.split("/"));
}
