// The AgentHost port over Pi: injected mail becomes a custom message, notices and the footer go
// to Pi's UI. After the session is replaced every ctx call throws, so each call is guarded.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { mailMessageType } from "../../domain/mail/message-type.js";
import type { AgentHost, InjectedMail, InjectOptions, NoticeLevel } from "../../ports/mail/agent-host.js";

const footerKey = "session-mail";

export function createPiHost(pi: ExtensionAPI, ctx: ExtensionContext, isLive: () => boolean): AgentHost {
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
        ctx.ui.notify(text, level);
      } catch {
        // A notice is not worth a crash of the session.
      }
    },
    setStatus(text: string | undefined) {
      if (!isLive()) return;
      try {
        ctx.ui.setStatus(footerKey, text);
      } catch {
        // Same: the footer is a hint.
      }
    },
    hasShown(mailId: string) {
      try {
        return ctx.sessionManager.getEntries().some((entry) => {
          if (entry.type === "message") return answerOf(entry.message) === mailId;
          if (entry.type !== "custom_message" || entry.customType !== mailMessageType) return false;
          const details = entry.details as { mailId?: unknown } | undefined;
          return details?.mailId === mailId;
        });
      } catch {
        return false;
      }
    },
  };
}

/** The id of the answer a session_mail_ask tool result carried, if the message is one. */
export function answerOf(message: unknown): string | undefined {
  const m = message as { role?: unknown; toolName?: unknown; details?: { answer?: unknown } } | undefined;
  if (m?.role !== "toolResult" || m.toolName !== "session_mail_ask") return undefined;
  const answer = m.details?.answer;
  return typeof answer === "string" ? answer : undefined;
}
