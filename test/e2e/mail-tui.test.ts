// Issue 9 §3 in Pi's real TUI (a private tmux server, 100×30): injected mail is drawn as a compact
// header with its first line, the rest behind Pi's expand key (Ctrl+O); a tool result is one line
// that names the recipient and whether it runs; Tab completes a recipient with a space after it;
// /mailbox alone lists who runs. An RPC session beside it sends the mail.
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type PiSession, type Sandbox } from "./harness/rpc-session.js";
import { startTuiPane, type TmuxPane } from "./harness/tmux-pane.js";
import { readRunningRecord, runTimeoutMs, startMailSession, startTimeoutMs, waitUntil } from "./mail-support.js";

const viewer = { id: "0190e5e5-0000-7000-8000-0000000000e5", name: "viewer" };
const bee = { id: "0190e5e5-1111-7000-8000-0000000000b6", name: "bee" };

const fileTimeoutMs = startTimeoutMs * 2;
const hasTmux = spawnSync("tmux", ["-V"], { stdio: "ignore", env: { PATH: "/usr/bin:/bin" } }).status === 0;

describe.skipIf(!hasTmux)("session-mail in Pi's TUI", () => {
  let sandbox: Sandbox;
  let b: PiSession;
  let pane: TmuxPane;

  beforeAll(async () => {
    sandbox = createSandbox();
    b = await startMailSession(sandbox, bee);
    pane = startTuiPane({ sandbox, sessionId: viewer.id, name: viewer.name, columns: 100, rows: 30 });
    await pane.waitFor((s) => s.includes("(auto)"), "Pi's footer", startTimeoutMs);
    await waitUntil(() => readRunningRecord(sandbox, viewer.id), {
      timeoutMs: runTimeoutMs,
      what: "the viewer's running record",
      alive: [b],
    });
  }, fileTimeoutMs);

  afterAll(async () => {
    await pane?.close();
    await sandbox?.cleanup();
  }, fileTimeoutMs);

  it("draws a tool result as one line naming the recipient and saying it runs", async () => {
    pane.type('CALL_TOOL session_mail_send {"to":"bee","message":"hello bee"}');
    pane.keys("Enter");
    const shown = await pane.waitFor(
      (s) => s.includes("Sent to bee (running): delivered now."),
      "the result",
      runTimeoutMs,
    );
    // The call's line, then the result's one line; the text the model read (the id, "It is
    // delivered now.") is not part of the row (the model's own answer may quote it below).
    const lines = shown.split("\n").map((line) => line.trim());
    const call = lines.indexOf('session_mail_send bee "hello bee"');
    expect(call).toBeGreaterThan(-1);
    expect(lines[call + 1]).toBe("Sent to bee (running): delivered now.");
    expect(lines[call + 2] ?? "").not.toMatch(/^Sent message/);
    await pane.waitFor((s) => s.includes("tool said: Sent message"), "the model's answer", runTimeoutMs);
  });

  it("completes a recipient with Tab and a space after it, so the text typed next stays apart", async () => {
    pane.type("/mailbox be");
    // The completion row: bee's id and state (its id alone is on screen already, in a tool result).
    await pane.waitFor((s) => s.includes(`${bee.id} · `), "bee offered by completion", runTimeoutMs);
    pane.keys("Tab");
    pane.type("hello from the viewer");
    await pane.waitFor((s) => s.includes("/mailbox bee hello from the viewer"), "the completed line", runTimeoutMs);
    pane.keys("Enter");
    await pane.waitFor((s) => s.includes(`to ${bee.id}`), "the Sent notice", runTimeoutMs);
  });

  it("lists the running sessions for /mailbox alone", async () => {
    pane.type("/mailbox");
    await pane.waitFor((s) => s.includes("Show this session's mail address"), "the command's row", runTimeoutMs);
    pane.keys("Enter");
    const shown = await pane.waitFor((s) => s.includes("Running sessions:"), "the listing", runTimeoutMs);
    expect(shown).toMatch(/- bee: (idle|busy), working in /);
    expect(shown).toContain("- viewer (this session): ");
  });

  it("draws injected mail as a header and its first line, the whole body after Ctrl+O", async () => {
    const message = JSON.stringify({ to: "viewer", message: "Line one of the mail.\nLine two of the mail." });
    const run = await b.prompt(`CALL_TOOL session_mail_send ${message}`, runTimeoutMs);
    expect(run.settled.aborted).toBe(false);
    const collapsed = await pane.waitFor((s) => s.includes("✉ message from bee"), "the mail's header", runTimeoutMs);
    expect(collapsed).toContain("Line one of the mail.");
    expect(collapsed).toContain("ctrl+o for 1 more line");
    expect(collapsed).not.toContain("Line two of the mail.");
    expect(collapsed).not.toContain("[mailbox] From");
    // The model still read the whole framed text: its echo is the body's first line.
    await pane.waitFor((s) => s.includes("echo: Line one of the mail."), "the viewer's answer", runTimeoutMs);
    pane.keys("C-o");
    const expanded = await pane.waitFor((s) => s.includes("Line two of the mail."), "the expanded body", runTimeoutMs);
    expect(expanded).toContain("Tool output: expanded");
    expect(expanded).toContain("Line one of the mail.");
  });
});
