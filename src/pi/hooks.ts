// The pi.events hooks of the spec: message:send and message:scan are provided, message:inbound is
// emitted. All synchronous: the emitter reads its results off the payload the moment emit returns.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { MailboxEngine } from "../domain/mail/engine/index.js";
import { describeSendError } from "./texts.js";

type Unsubscribe = () => void;

interface SendPayload {
  to?: unknown;
  body?: unknown;
  envelope?: unknown;
  error?: unknown;
}

/** Connects one session's engine to the bus; the returned function disconnects it (at shutdown). */
export function connectHooks(pi: ExtensionAPI, engine: MailboxEngine): Unsubscribe {
  const offs: Unsubscribe[] = [];
  offs.push(
    pi.events.on("message:send", (data: unknown) => {
      if (typeof data !== "object" || data === null) return;
      const payload = data as SendPayload;
      if (payload.envelope !== undefined || payload.error !== undefined) return;
      if (typeof payload.to !== "string" || typeof payload.body !== "string") {
        payload.error = "message:send needs a string `to` (an address) and a string `body`.";
        return;
      }
      const sent = engine.request(payload.to, payload.body, "hook");
      if (sent.isOk()) payload.envelope = { ...sent.value.envelope };
      else payload.error = describeSendError(sent.error);
    }),
  );
  offs.push(
    pi.events.on("message:scan", (data: unknown) => {
      if (typeof data !== "object" || data === null) return;
      engine.scan();
      (data as { scanned?: boolean }).scanned = true;
    }),
  );
  offs.push(engine.onInbound((mail) => pi.events.emit("message:inbound", mail)));
  return () => {
    for (const off of offs) off();
  };
}
