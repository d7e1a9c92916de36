// The AgentHost port over Pi: injected mail becomes a custom message, notices and the footer go
// to Pi's UI. After the session is replaced every piContext call throws, so each call is guarded.

import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { createSessionFileTail } from "../../adapters/node/session-file-tail.js";
import { mailMessageType } from "../../domain/mail/message-type.js";
import type { AgentHost, InjectedMail, InjectOptions, NoticeLevel } from "../../ports/mail/agent-host.js";
import { askTurnHops } from "../shared/turn-hops.js";

const footerKey = "session-mail";

export function createPiHost(pi: ExtensionAPI, piContext: ExtensionContext, isLive: () => boolean): AgentHost {
  const tail = createSessionFileTail();
  return {
    inject(mail: InjectedMail, options: InjectOptions) {
      if (!isLive()) throw new Error("the session was replaced");
      pi.sendMessage(
        { customType: mailMessageType, content: mail.content, display: true, details: mail.details },
        options,
      );
    },
    notify(text: string, level: NoticeLevel) {
      if (!isLive()) return;
      try {
        piContext.ui.notify(text, level);
      } catch {
        // A notice is not worth a crash of the session.
      }
    },
    setStatus(text: string | undefined) {
      if (!isLive()) return;
      try {
        piContext.ui.setStatus(footerKey, text);
      } catch {
        // Same: the footer is a hint.
      }
    },
    hasShown(mailId: string) {
      try {
        if (piContext.sessionManager.getEntries().some((entry) => shows(entry, mailId))) return true;
        // Another process on this session id (one that crashed with the mail still journaled)
        // appended to the same file: what it showed is on disk, not in this process's memory.
        return tail(piContext.sessionManager.getSessionFile()).some(
          (line) => line.includes(mailId) && shows(parsed(line), mailId),
        );
      } catch {
        return false;
      }
    },
    // The bus's count for a turn its mail raised: one loop guard for both halves.
    peerTurnHops: () => askTurnHops(pi.events),
  };
}

/** Whether a session entry shows the mail `mailId`: as the mail's message, or as the ask's answer. */
function shows(entry: unknown, mailId: string): boolean {
  const e = entry as { type?: unknown; message?: unknown; customType?: unknown; details?: { mailId?: unknown } };
  if (e?.type === "message") return answerOf(e.message) === mailId;
  return e?.type === "custom_message" && e.customType === mailMessageType && e.details?.mailId === mailId;
}

function parsed(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** The id of the answer a session_mail_ask tool result carried, if the message is one. */
export function answerOf(message: unknown): string | undefined {
  const m = message as { role?: unknown; toolName?: unknown; details?: { answer?: unknown } } | undefined;
  if (m?.role !== "toolResult" || m.toolName !== "session_mail_ask") return undefined;
  const answer = m.details?.answer;
  return typeof answer === "string" ? answer : undefined;
}
