// `switchboard send` and `switchboard ask`: a request, or an ask and its answer, from the shell's own
// address, addressed as /mailbox addresses.
import type { Address } from "../../domain/mail/address.js";
import { resolveAddress } from "../../domain/mail/addressing.js";
import type { ListedSession } from "../../domain/mail/engine/index.js";
import { askWaitMs, sendBodyBytesMax } from "../../domain/mail/limits.js";
import { kib } from "../../domain/shared/text/utf8.js";
import type { CliContext, Command } from "../command.js";
import { type ExitCode, exitCodes } from "../exit-codes.js";
import { jsonLine } from "../format.js";
import { callerSession, openMailReader, openShell, type ShellSession } from "../mail-side.js";
import { describeRefusal } from "../mail-texts.js";
import { messageText } from "../message-text.js";
import { askOutcome } from "./ask-outcome.js";

/** The text from the argument, or from stdin for `-`; undefined (after saying why) when it is empty. */
async function bodyOf(ctx: CliContext, text: string): Promise<string | ExitCode> {
  const body = await messageText(ctx, text, {
    maxBytes: sendBodyBytesMax,
    tooLong: `over the limit of ${kib(sendBodyBytesMax)}`,
  });
  if (typeof body !== "string") return body;
  if (body.trim() === "") return ctx.fail(exitCodes.usage, `the message is empty${text === "-" ? " (stdin)" : ""}.`);
  return body;
}

const noSlot = (ctx: CliContext) =>
  ctx.fail(
    exitCodes.error,
    `the mail root ${ctx.mailRoot} cannot be opened (switchboard doctor says why), or 16 shells already wait on answers.`,
  );

export const send: Command = {
  words: ["send"],
  summary: "send a request to a running session; prints its id",
  args: "<to> <text|->",
  description: [
    "Writes a request from this shell to a session, addressed as /mailbox addresses: its name, bus label,",
    "an id prefix of 8 or more, or a full id (a closed session reads it when it starts). The text is",
    "the argument, or stdin for -. Prints the request's id; the session's answer comes to the shell's inbox.",
  ].join("\n"),
  examples: [
    'switchboard send reviewer "Look at the diff in src/cli when you are free"',
    "git diff | switchboard send reviewer -",
  ],
  options: {},
  positionals: { min: 2, max: 2 },
  async run({ positionals: [to, text] }, ctx) {
    const body = await bodyOf(ctx, text!);
    if (typeof body !== "string") return body;
    const running = openMailReader(ctx).list();
    // A name nobody answers to is refused before the shell's own mailbox is made.
    const unknown = unknownRecipient(to!, running);
    if (unknown !== undefined) return refuseSend(ctx, unknown);
    const caller = callerSession(ctx, running);
    const opened = openShell(ctx, running, caller);
    if (opened === undefined) return noSlot(ctx);
    const { engine } = opened.session;
    try {
      // From a session's tool the request carries that session's hop count, as an extension's
      // message:send does; that path takes an address, so the name is resolved first.
      const sent =
        caller === undefined
          ? engine.request(to!, body, "command")
          : engine.resolve(to!).andThen((address) => engine.request(address, body, "hook"));
      if (sent.isErr()) return refuseSend(ctx, describeRefusal(sent.error, to!));
      const { envelope, recipientRunning } = sent.value;
      if (ctx.json) {
        ctx.term.out(
          jsonLine({
            id: envelope.id,
            kind: "request",
            to: envelope.to,
            from: envelope.from,
            running: recipientRunning,
          }),
        );
      } else {
        ctx.term.out(`${envelope.id}\n`);
        if (!recipientRunning)
          ctx.term.err(`${envelope.to} is not running: the request waits in its inbox until it starts.\n`);
      }
      return exitCodes.ok;
    } finally {
      opened.session.close();
    }
  },
};

/** `--timeout`: seconds, or a number with ms, s, m or h; at most an ask's wait. */
export function parseTimeout(text: string): number | string {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (match === null) return `--timeout "${text}" is not a duration (90, 90s, 10m)`;
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? "s"]!;
  const ms = Math.round(Number(match[1]) * unit);
  if (ms <= 0) return "--timeout must be more than 0";
  if (ms > askWaitMs) return `--timeout is at most ${askWaitMs / 60_000}m, the longest an ask waits`;
  return ms;
}

/** Whether `target` waits, directly or through others, on `on` (following waitingOn, bounded). */
function waitsOn(running: readonly ListedSession[], target: Address, on: Address): boolean {
  const byAddress = new Map(running.map((s) => [s.address as string, s]));
  let at = byAddress.get(target);
  for (let hop = 0; at !== undefined && hop < running.length; hop++) {
    if (at.waitingOn === on) return true;
    at = byAddress.get(at.waitingOn);
  }
  return false;
}

export const ask: Command = {
  words: ["ask"],
  summary: "ask a running session and print its answer",
  args: "<to> <text|->",
  description: [
    "Writes an ask from this shell and waits for the answer, printing its text on stdout. The exit code",
    "says how it ended: 0 answered, 3 its run was stopped, 4 it failed, 5 no answer within --timeout,",
    "6 the target is not running or stopped before answering, 7 refused (hop limit, a wait that would",
    "deadlock, a session refusing mail). While it waits the shell has a running record, so the target",
    "sees who asks. Run from a Pi session's tool, it carries that session's hop count.",
  ].join("\n"),
  examples: [
    'switchboard ask reviewer "Is src/cli/program.ts ready to merge? Answer yes or no." --timeout 5m',
    "git show HEAD | switchboard ask reviewer - --json",
  ],
  options: {
    timeout: { type: "string", value: "duration", help: "how long to wait: 90, 90s, 10m (default and most: 10m)" },
  },
  positionals: { min: 2, max: 2 },
  async run({ positionals: [to, text], values }, ctx) {
    const timeoutMs = parseTimeout(typeof values.timeout === "string" ? values.timeout : "10m");
    if (typeof timeoutMs === "string") return ctx.fail(exitCodes.usage, timeoutMs);
    const body = await bodyOf(ctx, text!);
    if (typeof body !== "string") return body;
    const running = openMailReader(ctx).list();
    const unknown = unknownRecipient(to!, running);
    if (unknown !== undefined) return refuse(ctx, unknown);
    const caller = callerSession(ctx, running);
    for (let slot = 1; ; ) {
      const opened = openShell(ctx, running, caller, slot);
      if (opened === undefined) return noSlot(ctx);
      const ended = await askOnce(ctx, opened.session, { to: to!, body, timeoutMs, caller, running });
      if (ended !== "taken") return ended;
      // Another shell took this slot at the same moment: its inbox is that shell's, so try the next.
      slot = opened.slot + 1;
    }
  },
};

/** Why `to` names no session among `running` (nor a full id), or undefined when it does. */
function unknownRecipient(to: string, running: readonly ListedSession[]) {
  const resolved = resolveAddress(to, undefined, running);
  return resolved.isErr() ? describeRefusal({ kind: "address", error: resolved.error }, to) : undefined;
}

/** A refusal of send: the reason on stderr. */
const refuseSend = (ctx: CliContext, { text, code }: { text: string; code: ExitCode }) => ctx.fail(code, text);

/** A refusal of ask: the reason on stderr, and with --json the same as an object on stdout. */
function refuse(ctx: CliContext, refusal: { text: string; code: ExitCode }): ExitCode {
  if (ctx.json)
    ctx.term.out(
      jsonLine({
        outcome: refusal.code === exitCodes.gone ? "gone" : refusal.code === exitCodes.refused ? "refused" : "error",
        error: refusal.text,
      }),
    );
  return ctx.fail(refusal.code, refusal.text);
}

interface AskInput {
  to: string;
  body: string;
  timeoutMs: number;
  caller: ListedSession | undefined;
  running: readonly ListedSession[];
}

async function askOnce(ctx: CliContext, shell: ShellSession, input: AskInput): Promise<ExitCode | "taken"> {
  const { engine } = shell;
  const controller = new AbortController();
  let why: "timeout" | "interrupted" | undefined;
  const timer = setTimeout(() => {
    why = "timeout";
    controller.abort();
  }, input.timeoutMs);
  const off = ctx.term.onInterrupt(() => {
    why = "interrupted";
    controller.abort();
  });
  try {
    const target = engine.resolve(input.to);
    if (input.caller !== undefined && target.isOk() && waitsOn(input.running, target.value, input.caller.address)) {
      return refuse(ctx, describeRefusal({ kind: "deadlock", to: target.value }, input.to));
    }
    const startedMs = ctx.term.now();
    const asked = await engine.ask(input.to, input.body, controller.signal, (progress) => {
      if (progress.waitedMs === 0 && ctx.term.errIsTty && !ctx.json)
        ctx.term.err(`Waiting for ${input.to}'s answer (Ctrl-C stops waiting)…\n`);
    });
    if (asked.isErr()) {
      if (asked.error.kind === "not-owner") return "taken";
      return refuse(ctx, describeRefusal(asked.error, input.to));
    }
    return askOutcome(ctx, asked.value, { who: input.to, why, waitedMs: ctx.term.now() - startedMs });
  } finally {
    clearTimeout(timer);
    off();
    shell.close();
  }
}
