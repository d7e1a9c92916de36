// How a run ended, from Pi's events: the last assistant message's text and stop reason, and
// agent_settled's `aborted` (a stop during a tool call can end as an error, so `aborted` wins).
import type { RunOutcome } from "../../domain/mail/settle-rules.js";

interface LastAssistant {
  text: string;
  stopReason: string | undefined;
  errorMessage: string | undefined;
}

interface RunTracker {
  assistantEnded(message: unknown): void;
  settled(aborted: boolean): RunOutcome;
}

function textOf(content: unknown): string {
  if (!Array.isArray(content)) return typeof content === "string" ? content : "";
  return content
    .filter((c): c is { type: "text"; text: string } => typeof c === "object" && c !== null && c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

export function createRunTracker(): RunTracker {
  let last: LastAssistant | undefined;
  return {
    assistantEnded(message) {
      if (typeof message !== "object" || message === null) return;
      const m = message as { role?: unknown; content?: unknown; stopReason?: unknown; errorMessage?: unknown };
      if (m.role !== "assistant") return;
      const text = textOf(m.content);
      const stopReason = typeof m.stopReason === "string" ? m.stopReason : undefined;
      // Every message sets how the run stands, a text-less one too: a run Pi carried on past an error
      // (a retry, or queued mail) and ended with tool calls and no text ended well. Its text is the
      // last one written.
      last = {
        text: text !== "" ? text : (last?.text ?? ""),
        stopReason,
        errorMessage: typeof m.errorMessage === "string" ? m.errorMessage : undefined,
      };
    },
    settled(aborted) {
      const seen = last;
      last = undefined;
      const text = seen?.text ?? "";
      if (aborted) return { kind: "stopped", text };
      if (seen?.stopReason === "error") return { kind: "failed", error: seen.errorMessage ?? "unknown error", text };
      return { kind: "done", text: text !== "" ? text : "(The run completed without writing any text.)" };
    },
  };
}
