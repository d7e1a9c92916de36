// session-mail for Pi: the composition root. One mailbox engine per session; everything Pi tells
// the extension is forwarded to it, and it acts back only through the host port.
import type { ExtensionAPI, ExtensionContext, MessageEndEventResult } from "@earendil-works/pi-coding-agent";
import { agentDirFromEnv } from "../../adapters/node/agent-dir.js";
import { mailRootFromEnv } from "../../adapters/node/mail-root.js";
import { isAddress } from "../../domain/mail/address.js";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { droppedNotice } from "../../domain/mail/framing.js";
import { mailMessageType } from "../../domain/mail/message-type.js";
import { createNodeMailbox } from "../../wiring/node-mailbox.js";
import { isDisabled } from "../shared/disabled.js";
import { registerMailboxCommand } from "./command.js";
import { emitInbound, provideHooks } from "./hooks.js";
import { createNamesakeCheck, type NamesakeCheck } from "./namesakes.js";
import { answerOf, createPiHost } from "./pi-host.js";
import { renderMail } from "./renderers.js";
import { createRunTracker } from "./run-outcome.js";
import { registerMailTools } from "./tools.js";

interface Live {
  engine: MailboxEngine;
  /** The mail root this engine was opened on, from XDG_STATE_HOME at its start. */
  root: string;
  ctx: ExtensionContext;
  disconnect: () => void;
  namesakes: NamesakeCheck;
}

/** A warning through this ctx; a replaced session's ctx throws, and a warning is not worth a crash. */
function warner(ctx: ExtensionContext): (text: string) => void {
  return (text) => {
    try {
      ctx.ui.notify(text, "warning");
    } catch {
      // The session was replaced meanwhile.
    }
  };
}

export default function sessionMail(pi: ExtensionAPI): void {
  if (isDisabled("session-mail")) return;
  let live: Live | undefined;
  const run = createRunTracker();
  // XDG_STATE_HOME is read at every call, as the spec says: when it names another mail root now,
  // the mailbox moves there (a new engine on the new root) before the call is served.
  const engine = () => {
    const current = live;
    if (current !== undefined && mailRootFromEnv() !== current.root) {
      stop();
      start(current.ctx);
      warner(current.ctx)(
        `The mail root is now ${mailRootFromEnv()} (XDG_STATE_HOME changed): this session's mailbox moved there.`,
      );
    }
    return live?.engine;
  };

  const start = (ctx: ExtensionContext) => {
    const address = ctx.sessionManager.getSessionId();
    if (!isAddress(address)) {
      ctx.ui.notify(`The mailbox is off: the session id ${JSON.stringify(address)} cannot be a mail address.`, "error");
      return;
    }
    let open = true;
    const root = mailRootFromEnv();
    const mailbox = createNodeMailbox({ host: createPiHost(pi, ctx, () => open), agentDir: agentDirFromEnv(), root });
    const disconnect = emitInbound(pi, mailbox);
    live = {
      engine: mailbox,
      root,
      ctx,
      disconnect: () => {
        open = false;
        disconnect();
      },
      namesakes: createNamesakeCheck(),
    };
    mailbox.sessionStarted({ address, name: pi.getSessionName(), cwd: ctx.cwd });
    live.namesakes(mailbox, warner(ctx));
  };

  const stop = () => {
    const current = live;
    live = undefined;
    if (current === undefined) return;
    current.engine.shutdown();
    current.disconnect();
  };

  pi.on("session_start", (_event, ctx) => {
    stop();
    start(ctx);
  });
  pi.on("session_shutdown", () => stop());
  pi.on("session_info_changed", (event, ctx) => {
    const current = live;
    if (current === undefined) return;
    current.engine.renamed(event.name);
    current.namesakes(current.engine, warner(ctx));
  });
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
