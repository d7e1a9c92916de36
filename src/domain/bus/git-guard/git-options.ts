// Reading a git command's options as git does: `--name=value` and `--name value` for the long ones
// that take a value, short clusters (`-am msg`: `a`, then `m` takes the rest or the next word), `--`
// ending the options. An option this reader does not know is taken as a flag: it never makes a
// path of its value, so at worst a value is read as a path the guard then looks at needlessly.
import type { Word } from "./shell-reading.js";

interface OptionSpec {
  /** Short letters that take a value: attached (`-mmsg`) or the next word. */
  shortValue?: string;
  /** Short letters whose value can only be attached (`-uno`). */
  shortOptional?: string;
  /** Long names (with their dashes) that take the next word when no `=` follows them. */
  longValue?: readonly string[];
}

/** A value an option took, where it is (an index in the call's words) and what precedes it there
 * (`-m`, `--message=` when attached; empty when it is a word of its own). */
interface OptionValue {
  value: Word;
  at: number;
  prefix: string;
}

export interface Positional {
  word: Word;
  at: number;
}

export interface ScannedOptions {
  flags: Set<string>;
  values: Map<string, OptionValue>;
  positionals: Positional[];
  /** How many positionals came before a `--`; undefined when there was none. */
  beforeDashDash: number | undefined;
}

export function scanOptions(args: readonly Word[], from: number, spec: OptionSpec): ScannedOptions {
  const out: ScannedOptions = { flags: new Set(), values: new Map(), positionals: [], beforeDashDash: undefined };
  for (let i = from; i < args.length; i++) {
    const word = args[i];
    if (word === undefined || out.beforeDashDash !== undefined || word === "-" || !word.startsWith("-")) {
      out.positionals.push({ word, at: i });
    } else if (word === "--") {
      out.beforeDashDash = out.positionals.length;
    } else if (word.startsWith("--")) {
      i = readLong(args, i, word, spec, out);
    } else {
      i = readCluster(args, i, word, spec, out);
    }
  }
  return out;
}

function readLong(args: readonly Word[], i: number, word: string, spec: OptionSpec, out: ScannedOptions): number {
  const equals = word.indexOf("=");
  if (equals > 0) {
    const name = word.slice(0, equals);
    out.values.set(name, { value: word.slice(equals + 1), at: i, prefix: `${name}=` });
    return i;
  }
  if (spec.longValue?.includes(word)) {
    out.values.set(word, { value: args[i + 1], at: i + 1, prefix: "" });
    return i + 1;
  }
  out.flags.add(word);
  return i;
}

function readCluster(args: readonly Word[], i: number, word: string, spec: OptionSpec, out: ScannedOptions): number {
  for (let j = 1; j < word.length; j++) {
    const letter = word[j] as string;
    const rest = word.slice(j + 1);
    if (spec.shortValue?.includes(letter)) {
      if (rest !== "") out.values.set(letter, { value: rest, at: i, prefix: word.slice(0, j + 1) });
      else {
        out.values.set(letter, { value: args[i + 1], at: i + 1, prefix: "" });
        return i + 1;
      }
      return i;
    }
    if (spec.shortOptional?.includes(letter)) {
      out.values.set(letter, { value: rest, at: i, prefix: word.slice(0, j + 1) });
      return i;
    }
    out.flags.add(letter);
  }
  return i;
}

/** Whether any of `names` (a short letter or a long name) was given. */
export const given = (scanned: ScannedOptions, ...names: string[]): boolean =>
  names.some((name) => scanned.flags.has(name) || scanned.values.has(name));

/** The value of the first of `names` that was given. */
export function optionValue(scanned: ScannedOptions, ...names: string[]): OptionValue | undefined {
  for (const name of names) {
    const value = scanned.values.get(name);
    if (value !== undefined) return value;
  }
  return undefined;
}
