// session-mail for Pi: what Pi calls. One mailbox per session (runtime.ts keeps it); everything Pi
// tells the extension is forwarded to it, and it acts back only through the host port.
import type { ExtensionAPI, MessageEndEventResult } from "@earendil-works/pi-coding-agent";
import { droppedNotice } from "../../domain/mail/framing.js";
import { mailMessageType } from "../../domain/mail/message-type.js";
import { isDisabled } from "../shared/disabled.js";
import { answerMailMode } from "../shared/roster.js";
import { answerTurnHops } from "../shared/turn-hops.js";
import { registerMailboxCommand } from "./command.js";
import { provideHooks } from "./hooks.js";
import { answerOf } from "./pi-host.js";
import { renderMail } from "./renderers.js";
import { answerMailRoster } from "./roster.js";
import { createRunTracker } from "./run-outcome.js";
import { createMailRuntime } from "./runtime.js";
import { registerMailTools } from "./tools.js";

export default function sessionMail(pi: ExtensionAPI): void {
  if (isDisabled("session-mail")) return;
  const mail = createMailRuntime(pi);
  const run = createRunTracker();
  const engine = () => mail.engine();

  pi.on("session_start", (_event, piContext) => mail.start(piContext));
  pi.on("session_shutdown", () => mail.stop());
  pi.on("session_info_changed", (event, piContext) => mail.renamed(event.name, piContext));
  answerTurnHops(pi.events, () => engine()?.turnHops() ?? 0);
  answerMailRoster(pi, engine);
  answerMailMode(pi.events, () => engine()?.mailMode());
  pi.on("input", () => {
    engine()?.input();
  });
  pi.on("agent_start", () => engine()?.runStarted());
  pi.on("message_end", (event): MessageEndEventResult | undefined => {
    const message = event.message as { role?: string; customType?: string; details?: { mailId?: unknown } };
    if (message.role === "assistant") run.assistantEnded(event.message);
    // An ask's answer entered as its tool result: it leaves the claim journal like read mail.
    const answer = answerOf(event.message);
    if (answer !== undefined) engine()?.messageEntered(answer);
    if (message.role !== "custom" || message.customType !== mailMessageType) return undefined;
    const id = message.details?.mailId;
    if (typeof id !== "string") return undefined;
    // Mail already answered failed as unread (Pi kept it queued through an RPC abort) is withdrawn.
    if (engine()?.wasDropped(id) === true) {
      return { message: { ...event.message, content: droppedNotice(id) } as typeof event.message };
    }
    engine()?.messageEntered(id);
    return undefined;
  });
  pi.on("agent_settled", (event) => {
    const outcome = run.settled(event.aborted);
    engine()?.runSettled(outcome);
  });

  // People see mail as a compact header; the model still gets the whole framed content.
  pi.registerMessageRenderer(mailMessageType, renderMail);
  provideHooks(pi, engine);
  registerMailTools(pi, engine);
  registerMailboxCommand(pi, engine);
}
