// A command written back from its shell words with a few of them replaced or added: the guard's way
// to tag a stash push and to name the entry a bare pop takes. Only a command whose words say all the
// shell will do is written back (see CommandReading.tokens), each word quoted so the shell reads it
// as the parser did; an operator is written as itself, a descriptor kept against its redirection.
import type { ShellToken } from "./shell-reading.js";

/** A word to write: quoted as needed, or `raw` shell text (a substitution the guard itself wrote). */
export type OutWord = { text: string } | { raw: string };

export type TokenEdit =
  | { kind: "replace"; token: number; words: OutWord[] }
  | { kind: "insert"; after: number; words: OutWord[] };

const safeWord = /^[A-Za-z0-9_@%+=:,./-]+$/;
const assignmentName = /^[A-Za-z_][A-Za-z0-9_]*=/;
const redirects = new Set([">", ">>", "<", ">&", "<&", "&>", "&>>", ">|", "<>", "<<<"]);

/** `word` as one shell word. An assignment keeps its `NAME=` bare: quoted, it would be a command. */
export function quoteWord(word: string): string {
  if (safeWord.test(word)) return word;
  const name = assignmentName.exec(word)?.[0];
  if (name !== undefined) return `${name}${quoteWord(word.slice(name.length))}`;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

const written = (word: OutWord) => ("raw" in word ? word.raw : quoteWord(word.text));

export function writeCommand(tokens: readonly ShellToken[], edits: readonly TokenEdit[]): string {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as ShellToken;
    const replaced = edits.find((edit) => edit.kind === "replace" && edit.token === i);
    const next = tokens[i + 1];
    if (replaced !== undefined) out.push(...replaced.words.map(written));
    else if (typeof token === "string") {
      const descriptor = /^\d+$/.test(token) && typeof next === "object" && "op" in next && redirects.has(next.op);
      if (descriptor) {
        out.push(`${token}${redirection(next.op, tokens[i + 2])}`);
        i += 2;
      } else out.push(quoteWord(token));
    } else if ("op" in token && redirects.has(token.op)) {
      out.push(redirection(token.op, next));
      i++;
    } else if ("op" in token) out.push(token.pattern ?? token.op);
    for (const edit of edits) if (edit.kind === "insert" && edit.after === i) out.push(...edit.words.map(written));
  }
  return out.join(" ");
}

function redirection(op: string, target: ShellToken | undefined): string {
  return typeof target === "string" ? `${op}${quoteWord(target)}` : op;
}
