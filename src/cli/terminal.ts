// What the program reads and writes: its arguments come separately; here are its streams, its
// environment and its clock, so every command is a function of them and a test can run it whole.
import { homedir } from "node:os";

export interface Terminal {
  /** Writes to stdout (the answer a script reads). */
  out(text: string): void;
  /** Writes to stderr (errors, progress, warnings). */
  err(text: string): void;
  /** stdin as UTF-8 text, read until its end; or why not: it ran past `maxBytes` (the rest unread),
   * or it is not UTF-8 (never replaced with U+FFFD behind the sender's back). */
  readStdin(maxBytes: number): Promise<string | { problem: "too-long" | "not-utf8" }>;
  /** Writing to stdout failed for a reason other than its reader going away: the command failed. */
  readonly outFailed: boolean;
  /** stdout is a terminal: people read it (aligned columns, relative times, colour unless NO_COLOR). */
  outIsTty: boolean;
  errIsTty: boolean;
  /** Colour on stdout: a terminal and no NO_COLOR. */
  color: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
  home: string;
  now(): number;
  /** Calls `fn` on Ctrl-C or SIGTERM, or when whoever reads stdout closes it (`tail | head`),
   * until the returned function is called. */
  onInterrupt(fn: (why: Interruption) => void): () => void;
}

type Interruption = "SIGINT" | "SIGTERM" | "stdout-closed";

/** NO_COLOR, when present and not empty, turns colour off (https://no-color.org). */
const noColor = (env: NodeJS.ProcessEnv) => env.NO_COLOR !== undefined && env.NO_COLOR !== "";

export function nodeTerminal(): Terminal {
  const outIsTty = process.stdout.isTTY === true;
  const listeners = new Set<(why: Interruption) => void>();
  let outClosed = false;
  // A reader that went away (EPIPE) ends the command as an interruption would, and what is still
  // to print goes nowhere: never an unhandled error with its stack trace.
  // Any other failure to write (a full disk) is said once on stderr, and the command fails.
  let outFailed = false;
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (outClosed) return;
    outClosed = true;
    if (e.code !== "EPIPE") {
      outFailed = true;
      process.stderr.write(`switchboard: cannot write to stdout (${e.code ?? e.message}).\n`);
    }
    for (const fn of [...listeners]) fn("stdout-closed");
  });
  return {
    out: (text) => {
      if (!outClosed) process.stdout.write(text);
    },
    err: (text) => void process.stderr.write(text),
    async readStdin(maxBytes) {
      const chunks: Buffer[] = [];
      let bytes = 0;
      for await (const chunk of process.stdin) {
        chunks.push(chunk as Buffer);
        bytes += (chunk as Buffer).length;
        if (bytes > maxBytes) return { problem: "too-long" };
      }
      try {
        return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
      } catch {
        return { problem: "not-utf8" };
      }
    },
    get outFailed() {
      return outFailed;
    },
    outIsTty,
    // Read when asked: the first touch of process.stderr makes its stream (a millisecond or two).
    get errIsTty() {
      return process.stderr.isTTY === true;
    },
    color: outIsTty && !noColor(process.env),
    env: process.env,
    cwd: process.cwd(),
    home: homedir(),
    now: () => Date.now(),
    onInterrupt(fn) {
      const onInt = () => fn("SIGINT");
      const onTerm = () => fn("SIGTERM");
      process.on("SIGINT", onInt);
      process.on("SIGTERM", onTerm);
      listeners.add(fn);
      return () => {
        process.off("SIGINT", onInt);
        process.off("SIGTERM", onTerm);
        listeners.delete(fn);
      };
    },
  };
}
