// The git guard: before the model's `bash` runs, in every session of the repository, joined or not,
// its git invocations are read from the command's shell words. A stash entry another session pushed
// is never taken, `git stash clear` waits until this session is alone, and a command that would
// discard, delete, stage, commit or stash a live peer's claimed changes in its worktree is refused;
// this session's own pushes are tagged with its id and a bare pop takes its newest entry. Only the
// model's tool calls reach `tool_call`: a person's `!` commands (Pi's `user_bash`) are never checked.
// A fact that cannot be read lets the command through and tells the person once; nothing may throw.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import parse from "shell-quote/parse.js";
import { createGitFacts } from "../../adapters/node/git-facts.js";
import type { Holder } from "../../domain/bus/claim-rules.js";
import { writeCommand } from "../../domain/bus/git-guard/command-text.js";
import { type GuardPorts, judgeCommand } from "../../domain/bus/git-guard/judge.js";
import { dynamicMark, readCommand, type ShellToken } from "../../domain/bus/git-guard/shell-reading.js";
import { shellCommandCharsMax } from "../../domain/bus/limits.js";
import type { GitFacts } from "../../ports/bus/git-facts.js";
import { gitRefusal, gitTooLongText, gitUncheckedText } from "./git-guard-texts.js";
import type { BusAccess } from "./session-tool.js";

/** shell-quote's words, every variable and substitution read as the mark of a word not known. */
const shellWords = (text: string): ShellToken[] => parse(text, () => dynamicMark) as ShellToken[];

export function registerGitGuard(pi: ExtensionAPI, access: BusAccess): void {
  let facts: GitFacts | undefined;
  pi.on("tool_call", async (event, piContext) => {
    if (event.toolName !== "bash") return undefined;
    try {
      const input = event.input as { command?: unknown };
      // A command without the letters "git" runs no git this guard could read (a name the shell
      // makes up is not read anyway): most commands cost no parse at all.
      if (typeof input.command !== "string" || !input.command.includes("git")) return undefined;
      if (input.command.length > shellCommandCharsMax) {
        access.guardFailed("git-guard-long", gitTooLongText(shellCommandCharsMax));
        return undefined;
      }
      const reading = readCommand(input.command, piContext.cwd, shellWords);
      if (reading.calls.length === 0) return undefined;
      facts ??= createGitFacts();
      const verdict = await judgeCommand(reading, selfOf(pi, piContext, access), portsOf(facts, access));
      for (const why of verdict.unchecked) access.guardFailed("git-guard", gitUncheckedText(why));
      if (verdict.refusal !== undefined) return { block: true, reason: gitRefusal(verdict.refusal, access.shortIds) };
      // Pi runs what the input says after every handler: the tagged command replaces the model's.
      if (verdict.edits.length > 0 && reading.tokens !== undefined) {
        input.command = writeCommand(reading.tokens, verdict.edits);
      }
      return undefined;
    } catch (error) {
      // A handler that throws blocks the call in Pi: the guard's own fault must never do that.
      access.guardFailed("git-guard-threw", `A git command ran without the git guard's check: ${String(error)}`);
      return undefined;
    }
  });
}

/** This session as its stash tags name it: Pi's session id (which a resume keeps, and the bus's
 * id of it) and, for a person reading `git stash list`, its bus label or Pi's session name. */
function selfOf(pi: ExtensionAPI, piContext: ExtensionContext, access: BusAccess) {
  const member = access.engine(true)?.membership();
  return { id: piContext.sessionManager.getSessionId(), label: member?.label ?? pi.getSessionName() };
}

/** The bus's answers, each read once per command (a chain of guarded calls lists the claims once). */
function portsOf(facts: GitFacts, access: BusAccess): GuardPorts {
  const once = <T>(read: () => T): (() => T) => {
    let value: { read: T } | undefined;
    return () => {
      value ??= { read: read() };
      return value.read;
    };
  };
  return {
    facts,
    peerClaims: once(() => access.engine(true)?.peerClaims()),
    liveOthers: once(() =>
      access
        .engine(true)
        ?.snapshot()
        .map((view) =>
          view.sessions
            .filter((row) => row.state === "active" && !row.self)
            .map((row): Holder => ({ id: row.id, label: row.label })),
        ),
    ),
  };
}
