// The pi.events hooks of the spec: message:send and message:scan are provided, message:inbound is
// emitted. All synchronous: the emitter reads its results off the payload the moment emit returns.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { MailboxEngine } from "../../domain/mail/engine/index.js";
import { describeSendError } from "./texts.js";

type Unsubscribe = () => void;

interface SendPayload {
  to?: unknown;
  body?: unknown;
  envelope?: unknown;
  error?: unknown;
}

/**
 * Provides message:send and message:scan for the life of this extension instance, whichever
 * session is live (Pi drops these subscriptions when it replaces or reloads the runtime). With no
 * live session (before session_start, after session_shutdown, or with the mailbox off),
 * message:send sets error: leaving both fields unset would tell the consumer no provider is
 * installed. message:scan then sets nothing, since no scan ran.
 */
export function provideHooks(pi: ExtensionAPI, engine: () => MailboxEngine | undefined): void {
  pi.events.on("message:send", (data: unknown) => {
    if (typeof data !== "object" || data === null) return;
    const payload = data as SendPayload;
    if (payload.envelope !== undefined || payload.error !== undefined) return;
    const current = engine();
    if (current === undefined) {
      payload.error = describeSendError({ kind: "no-session" });
      return;
    }
    if (typeof payload.to !== "string" || typeof payload.body !== "string") {
      payload.error = "message:send needs a string `to` (an address) and a string `body`.";
      return;
    }
    const sent = current.request(payload.to, payload.body, "hook");
    if (sent.isOk()) payload.envelope = { ...sent.value.envelope };
    else payload.error = describeSendError(sent.error);
  });
  pi.events.on("message:scan", (data: unknown) => {
    if (typeof data !== "object" || data === null) return;
    const current = engine();
    if (current === undefined) return;
    // Set only when everything waiting was emitted: a consumer told nothing concludes nothing.
    if (current.scan()) (data as { scanned?: boolean }).scanned = true;
  });
}

/** Emits message:inbound for one session's claimed mail; the returned function disconnects it (at shutdown). */
export function emitInbound(pi: ExtensionAPI, engine: MailboxEngine): Unsubscribe {
  return engine.onInbound((mail) => pi.events.emit("message:inbound", mail));
}
