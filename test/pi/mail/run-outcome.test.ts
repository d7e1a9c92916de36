// How a run ended, as the settle answers it: from the assistant messages of the run, in order.
import { describe, expect, it } from "vitest";
import { createRunTracker } from "../../../src/pi/mail/run-outcome.js";

const assistant = (content: unknown[], stopReason: string, errorMessage?: string) => ({
  role: "assistant",
  content,
  stopReason,
  ...(errorMessage === undefined ? {} : { errorMessage }),
});
const text = (t: string) => ({ type: "text", text: t });

describe("createRunTracker", () => {
  // "The status is done normally, stopped when the user stopped the run (with the partial text), or
  // failed when the run ended on an error (with the error and the partial text)."
  it("answers done a run that carried on past an error and ended with tool calls and no text", () => {
    const run = createRunTracker();
    run.assistantEnded(assistant([text("Looking.")], "error", "503 overloaded"));
    run.assistantEnded(assistant([{ type: "toolCall" }], "toolUse"));
    run.assistantEnded(assistant([], "stop"));
    expect(run.settled(false)).toEqual({ kind: "done", text: "Looking." });
  });

  it("answers failed a run whose last message ended on an error, with the last text written", () => {
    const run = createRunTracker();
    run.assistantEnded(assistant([text("Half done.")], "toolUse"));
    run.assistantEnded(assistant([], "error", "connection reset"));
    expect(run.settled(false)).toEqual({ kind: "failed", error: "connection reset", text: "Half done." });
  });

  it("answers stopped a run the user aborted, whatever its last message says, and starts afresh after", () => {
    const run = createRunTracker();
    run.assistantEnded(assistant([text("Partial")], "error", "aborted by tool"));
    expect(run.settled(true)).toEqual({ kind: "stopped", text: "Partial" });
    expect(run.settled(false)).toEqual({ kind: "done", text: "(The run completed without writing any text.)" });
  });
});
