// The program's exit codes: one meaning each, the same for every command, documented in
// docs/switchboard-cli.md; `ask` uses all of them.
export const exitCodes = {
  /** Done: the command did what it says (an ask was answered with status done). */
  ok: 0,
  /** It could not: a recipient that does not resolve, a disk error, a problem `doctor` found. */
  error: 1,
  /** Bad usage: an unknown command or option, a missing or malformed argument. */
  usage: 2,
  /** The ask was answered, but its run was stopped by its person (the partial text is printed). */
  stopped: 3,
  /** The ask was answered, but its run ended on an error (the error and partial text are printed). */
  failed: 4,
  /** No answer within --timeout; a later answer still arrives in the shell's inbox. */
  timeout: 5,
  /** The target is not running (no running session has that name, or the id's session is closed),
   * or stopped running before it answered. */
  gone: 6,
  /** Refused before anything was sent: the hop limit, a wait that would deadlock, a session whose
   * person refuses mail, or one suspended with Ctrl-Z. */
  refused: 7,
  /** Ctrl-C or SIGTERM while waiting. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes];
