// What the program reads and writes: its arguments come separately; here are its streams, its
// environment and its clock, so every command is a function of them and a test can run it whole.
import { homedir } from "node:os";

export interface Terminal {
  /** Writes to stdout (the answer a script reads). */
  out(text: string): void;
  /** Writes to stderr (errors, progress, warnings). */
  err(text: string): void;
  /** stdin as UTF-8, read until its end; undefined once it runs past `maxBytes` (the rest unread). */
  readStdin(maxBytes: number): Promise<string | undefined>;
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
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    if (outClosed) return;
    outClosed = true;
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
        if (bytes > maxBytes) return undefined;
      }
      return Buffer.concat(chunks).toString("utf8");
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
