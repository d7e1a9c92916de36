// The join API for other extensions, over pi.events (synchronous, like the mail hooks): emit
// "session-bus:join" with { label?, wake?, listen?, observe? } and read `result` or `error` off the payload
// when emit returns; neither set means no bus is installed. "session-label" announces every join
// and relabel as { id, label }, and a leave as { id, label: undefined }.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { describeBusError } from "../../domain/bus/bus-errors.js";
import { joinChannel } from "./registrations.js";
import type { BusAccess } from "./session-tool.js";

export { labelChannel } from "./registrations.js";

interface JoinPayload {
  label?: unknown;
  wake?: unknown;
  listen?: unknown;
  observe?: unknown;
  result?: { id: string; label: string; listening: boolean; wake: boolean };
  error?: { kind: string; message: string; holder?: string };
}

const optional = (value: unknown, type: "string" | "boolean") => value === undefined || typeof value === type;

export function provideJoin(pi: ExtensionAPI, access: BusAccess): void {
  pi.events.on(joinChannel, (data: unknown) => {
    if (typeof data !== "object" || data === null) return;
    const payload = data as JoinPayload;
    if (payload.result !== undefined || payload.error !== undefined) return;
    if (
      !optional(payload.label, "string") ||
      !optional(payload.wake, "boolean") ||
      !optional(payload.listen, "boolean") ||
      !optional(payload.observe, "boolean")
    ) {
      payload.error = {
        kind: "bad-request",
        message: "session-bus:join takes { label?: string, wake?: boolean, listen?: boolean, observe?: boolean }.",
      };
      return;
    }
    const joined = access.join({
      label: payload.label as string | undefined,
      wake: payload.wake as boolean | undefined,
      listen: payload.listen as boolean | undefined,
      observe: payload.observe as boolean | undefined,
    });
    if (joined.isOk()) {
      const { id, label, listening, wake } = joined.value;
      payload.result = { id, label, listening, wake };
      return;
    }
    const error = joined.error;
    payload.error = {
      kind: error.kind,
      message: describeBusError(error),
      ...(error.kind === "label-taken" ? { holder: error.holder } : {}),
    };
  });
}
