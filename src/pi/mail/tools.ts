// The four tools the model gets. Every refusal throws (Pi reports it as a tool error) and writes
// nothing. Each result carries a one-line summary in its details, which the TUI shows collapsed.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { TObject, TString } from "typebox";
import type { Address } from "../../domain/mail/address.js";
import { displayNames } from "../../domain/mail/addressing.js";
import type { AskProgress, MailboxEngine } from "../../domain/mail/engine/index.js";
import { askWaitMs, idPrefixCharsMin } from "../../domain/mail/limits.js";
import { renderToolResult } from "../shared/tool-view.js";
import { renderToolCall } from "./renderers.js";
import { busFacts } from "./roster.js";
import { describeSessions } from "./roster-texts.js";
import { describeAskOutcome, describeReplyError, describeSendError, describeSent } from "./texts.js";
import { describeAskProgress, summarizeAsk, summarizeSent, summarizeSessions } from "./tui-texts.js";

type EngineRef = () => MailboxEngine | undefined;

const noMailbox = "This session's mailbox is not running.";

function result(text: string, details: Record<string, unknown> = {}) {
  return { content: [{ type: "text" as const, text }], details };
}

function engineOrThrow(engine: EngineRef): MailboxEngine {
  const current = engine();
  if (current === undefined) throw new Error(noMailbox);
  return current;
}

/** A running session's name, or the unique prefix of its id; undefined when it does not run. */
function nameOf(engine: MailboxEngine, address: string): string | undefined {
  return displayNames(engine.list()).get(address as Address);
}

/** Text-only tool parameters as plain JSON Schema (Pi validates any JSON Schema), typed as TypeBox
 * would build them: TypeBox itself then stays out of the bundle, and out of every Pi start. */
function textParameters<K extends string>(descriptions: Record<K, string>): TObject<Record<K, TString>> {
  const keys = Object.keys(descriptions) as K[];
  const properties = Object.fromEntries(keys.map((key) => [key, { type: "string", description: descriptions[key] }]));
  return { type: "object", properties, required: keys } as unknown as TObject<Record<K, TString>>;
}

const toParameter = `Session name, id prefix of at least ${idPrefixCharsMin} characters, or full id`;

export function registerMailTools(pi: ExtensionAPI, engine: EngineRef): void {
  registerList(pi, engine);
  registerSend(pi, engine);
  registerAsk(pi, engine);
  registerReply(pi, engine);
}

function registerList(pi: ExtensionAPI, engine: EngineRef): void {
  pi.registerTool({
    name: "session_mail_list",
    label: "Mail: list sessions",
    description:
      "Lists every Pi session running on this machine: name (or the shortest unique prefix of its id) and bus label where it differs, full id, working directory, idle or busy, whom it waits on, and its claims and listening mode on this repository's bus. Marks this session.",
    promptSnippet: "see which other Pi sessions run on this machine",
    promptGuidelines: ["Use session_mail_list to find another session's name or id before sending it mail."],
    parameters: textParameters({}),
    async execute() {
      const sessions = engineOrThrow(engine).list();
      const queued = engineOrThrow(engine).queuedTo();
      return result(describeSessions(sessions, busFacts(pi), queued), { summary: summarizeSessions(sessions) });
    },
    renderCall: renderToolCall("session_mail_list"),
    renderResult: renderToolResult,
  });
}

function registerSend(pi: ExtensionAPI, engine: EngineRef): void {
  pi.registerTool({
    name: "session_mail_send",
    label: "Mail: send a message",
    description:
      "Sends a message (no answer expected) to another Pi session on this machine, by name, id prefix (8+ characters) or full id. A closed session gets it when it starts again (full id only).",
    promptSnippet: "leave another Pi session a message that expects no answer",
    promptGuidelines: ["Use session_mail_send for information another session needs but need not answer."],
    parameters: textParameters({ to: toParameter, message: "The text to send" }),
    async execute(_id, params) {
      const current = engineOrThrow(engine);
      const sent = current.send(params.to, params.message);
      if (sent.isErr()) throw new Error(describeSendError(sent.error));
      const { envelope, recipientRunning: running } = sent.value;
      const name = (running ? nameOf(current, envelope.to) : undefined) ?? envelope.to;
      return result(describeSent(sent.value, params.to), {
        id: envelope.id,
        to: envelope.to,
        name,
        running,
        summary: summarizeSent(name, running),
      });
    },
    renderCall: renderToolCall("session_mail_send"),
    renderResult: renderToolResult,
  });
}

function registerAsk(pi: ExtensionAPI, engine: EngineRef): void {
  pi.registerTool({
    name: "session_mail_ask",
    label: "Mail: ask and wait",
    description: `Asks another running Pi session a question and waits (up to ${askWaitMs / 60_000} minutes) for its answer, which becomes this tool's result. One ask at a time.`,
    promptSnippet: "ask another running Pi session a question and wait for its answer",
    promptGuidelines: [
      "Use session_mail_ask when you need another session's answer before you can go on; it blocks until the answer arrives.",
      "Do not use session_mail_ask with a session that is waiting on you; answer it with session_mail_reply instead.",
      "Use mail (session_mail_ask, session_mail_send) for a question that needs an answer or work handed to one session; use the bus's session tool, when it is loaded, to coordinate the repository: claims, events, handoffs of claimed files.",
    ],
    parameters: textParameters({ to: toParameter, message: "The question" }),
    async execute(_id, params, signal, onUpdate) {
      const current = engineOrThrow(engine);
      let name = params.to;
      // The first report comes as soon as the ask is written, while the target still runs: its name
      // is looked up once, then. Later ones come every askProgressIntervalMs of waiting.
      const progress = (p: AskProgress) => {
        if (p.waitedMs === 0) name = nameOf(current, p.to) ?? params.to;
        const text = describeAskProgress(name, p.waitedMs);
        try {
          onUpdate?.(result(text, { id: "", to: p.to, name, outcome: "waiting", summary: text }));
        } catch {
          // A progress line is not worth failing the ask (the row may be gone).
        }
      };
      const asked = await current.ask(params.to, params.message, signal, progress);
      if (asked.isErr()) throw new Error(describeSendError(asked.error));
      const { sent, outcome } = asked.value;
      const text = describeAskOutcome(outcome, params.to);
      // The answer's id goes with the result: Pi keeps the details in the session, and a restart
      // finds there that this answer was shown (see pi-host.ts hasShown).
      const details = {
        id: sent.envelope.id,
        to: sent.envelope.to,
        name,
        outcome: outcome.kind,
        summary: summarizeAsk(outcome, name),
        ...(outcome.kind === "answered" ? { answer: outcome.envelope.id } : {}),
      };
      if (outcome.kind === "answered" && outcome.envelope.status === "done") return result(text, details);
      return { ...result(text, details), isError: outcome.kind !== "answered" };
    },
    renderCall: renderToolCall("session_mail_ask"),
    renderResult: renderToolResult,
  });
}

function registerReply(pi: ExtensionAPI, engine: EngineRef): void {
  pi.registerTool({
    name: "session_mail_reply",
    label: "Mail: answer an ask",
    description:
      "Answers an ask another session is waiting on, at once, without ending this run. The ask id is in the mail's label.",
    promptSnippet: "answer a waiting session's ask right away",
    promptGuidelines: [
      "Use session_mail_reply to answer an ask as soon as you have the answer; requests are answered automatically at the end of the run.",
    ],
    parameters: textParameters({ ask: "The id of the ask, from its label", message: "The answer" }),
    async execute(_id, params) {
      const replied = engineOrThrow(engine).reply(params.ask, params.message);
      if (replied.isErr()) throw new Error(describeReplyError(replied.error));
      return result(`Answered ask ${params.ask} (reply ${replied.value.envelope.id}).`, {
        id: replied.value.envelope.id,
      });
    },
    renderCall: renderToolCall("session_mail_reply"),
    renderResult: renderToolResult,
  });
}
