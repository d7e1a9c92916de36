// Proves the e2e harness and the scripted model against real `pi --mode rpc` processes, with no
// mail extension: one long-lived session for the run cases, one for SIGTERM, one that fails to start.
import { readFileSync, readlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJsonlSplitter } from "./harness/jsonl-splitter.js";
import { assistantOutcomes, isObject, isSettled, type RpcRecord, toolEnd } from "./harness/rpc-records.js";
import {
  canUnshareNetwork,
  createSandbox,
  e2ePaths,
  type PiSession,
  type Sandbox,
  startPi,
  unexpectedStderr,
} from "./harness/rpc-session.js";

const e2eTimeoutMs = 60_000;
const runTimeoutMs = 15_000;

const lastOutcome = (records: readonly RpcRecord[]) => assistantOutcomes(records).at(-1);
const count = (records: readonly RpcRecord[], type: string) => records.filter((r) => r.type === type).length;

describe("jsonl splitter", () => {
  it("splits on LF only, keeps U+2028/U+2029 inside records, strips CR and joins chunks", () => {
    const lines: string[] = [];
    const splitter = createJsonlSplitter((line) => lines.push(line));
    splitter.push('{"a":"x\u2028y\u2029z"}\r\n{"b"');
    splitter.push(':1}\n{"c":2}');
    expect(lines).toEqual(['{"a":"x\u2028y\u2029z"}', '{"b":1}']);
    splitter.flush();
    expect(lines.at(-1)).toBe('{"c":2}');
  });
});

describe("e2e harness with a real pi --mode rpc and the scripted model", () => {
  let sandbox: Sandbox;
  let alpha: PiSession;
  let term: PiSession;
  let broken: PiSession;

  beforeAll(async () => {
    // Retry stays off unless a case turns it on; the short delay keeps that case fast.
    sandbox = createSandbox({ settings: { quietStartup: true, retry: { enabled: false, baseDelayMs: 50 } } });
    alpha = startPi({ sandbox, sessionId: "harness-alpha", name: "alpha", extensions: [] });
    term = startPi({ sandbox, sessionId: "harness-term", extensions: [] });
    broken = startPi({ sandbox, sessionId: "harness-broken", extensions: [join(sandbox.root, "missing.ts")] });
    await Promise.all([alpha.request({ type: "get_state" }), term.request({ type: "get_state" })]);
  }, e2eTimeoutMs);

  afterAll(async () => {
    await sandbox?.cleanup();
  }, e2eTimeoutMs);

  it.skipIf(!canUnshareNetwork())("runs Pi in its own network namespace (unshare -rn)", () => {
    expect(readlinkSync(`/proc/${alpha.pid}/ns/net`)).not.toBe(readlinkSync("/proc/self/ns/net"));
  });

  it("gives Pi an environment built from scratch, inheriting nothing", () => {
    const environ = readFileSync(`/proc/${alpha.pid}/environ`, "utf8")
      .split("\0")
      .filter((e) => e !== "");
    const env = new Map(environ.map((e) => [e.slice(0, e.indexOf("=")), e.slice(e.indexOf("=") + 1)]));
    expect([...env.keys()].sort()).toEqual([
      "HOME",
      "PATH",
      "PI_CODING_AGENT_DIR",
      "PI_OFFLINE",
      "PI_SKIP_VERSION_CHECK",
      "PI_TELEMETRY",
      "TMPDIR",
      "XDG_STATE_HOME",
    ]);
    expect(env.get("HOME")).toBe(sandbox.home);
    expect(env.get("PATH")?.split(":")[0]).toBe(dirname(e2ePaths.nodeBin));
  });

  it("get_state reports the session id given with --session-id and the scripted model", async () => {
    const response = await alpha.request({ type: "get_state" });
    expect(response.success).toBe(true);
    const data = isObject(response.data) ? response.data : {};
    expect(data.sessionId).toBe("harness-alpha");
    expect(data.sessionName).toBe("alpha");
    const model = isObject(data.model) ? data.model : {};
    expect([model.provider, model.id]).toEqual(["scripted", "echo"]);
  });

  it("a plain prompt settles with the echo of its first line", async () => {
    const run = await alpha.prompt("hello there\nsecond line", runTimeoutMs);
    expect(run.settled.aborted).toBe(false);
    expect(lastOutcome(run.records)).toEqual({
      text: "echo: hello there",
      stopReason: "stop",
      errorMessage: undefined,
    });
    const last = await alpha.request({ type: "get_last_assistant_text" });
    expect(isObject(last.data) ? last.data.text : undefined).toBe("echo: hello there");
  });

  it("CALL_TOOL runs the tool, then the model answers from the tool result", async () => {
    const run = await alpha.prompt('please\nCALL_TOOL slow_tool {"ms":50}', runTimeoutMs);
    const ends = run.records.map(toolEnd).filter((t) => t !== undefined);
    expect(ends).toEqual([{ toolName: "slow_tool", text: "slept 50", isError: false }]);
    expect(assistantOutcomes(run.records).map((o) => o.stopReason)).toEqual(["toolUse", "stop"]);
    expect(lastOutcome(run.records)?.text).toBe("tool said: slept 50");
    expect(run.settled.aborted).toBe(false);
  });

  it("FAIL_NOW ends the run with an assistant error 'scripted failure'", async () => {
    const run = await alpha.prompt("FAIL_NOW", runTimeoutMs);
    expect(run.settled.aborted).toBe(false);
    expect(lastOutcome(run.records)).toMatchObject({ stopReason: "error", errorMessage: "scripted failure" });
  });

  it("an RPC abort during a long slow_tool settles aborted and the tool reports the abort", async () => {
    const since = alpha.mark();
    const started = Date.now();
    const response = await alpha.request({ type: "prompt", message: 'CALL_TOOL slow_tool {"ms":5000}' });
    expect(response.success).toBe(true);
    await alpha.waitFor((r) => r.type === "tool_execution_start", runTimeoutMs, { since, what: "slow_tool start" });
    expect((await alpha.request({ type: "abort" })).success).toBe(true);
    const settled = await alpha.waitFor(isSettled, runTimeoutMs, { since, what: "agent_settled after abort" });
    expect(settled.aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
    const records = alpha.events.slice(since);
    expect(records.map(toolEnd).filter((t) => t !== undefined)).toEqual([
      { toolName: "slow_tool", text: "slow_tool aborted", isError: true },
    ]);
    expect(lastOutcome(records)?.stopReason).toBe("aborted");
  });

  it("an RPC abort during SLEEP ends the model call with stopReason aborted", async () => {
    const since = alpha.mark();
    await alpha.request({ type: "prompt", message: "SLEEP 5000\nthen echo" });
    const streaming = (r: RpcRecord) =>
      r.type === "message_start" && isObject(r.message) && r.message.role === "assistant";
    await alpha.waitFor(streaming, runTimeoutMs, { since, what: "assistant message_start" });
    await alpha.request({ type: "abort" });
    const settled = await alpha.waitFor(isSettled, runTimeoutMs, { since, what: "agent_settled after abort" });
    expect(settled.aborted).toBe(true);
    expect(lastOutcome(alpha.events.slice(since))).toMatchObject({ text: "", stopReason: "aborted" });
  });

  it("a mail label echoes its body line, and directives in the body are followed", async () => {
    const label = (body: string) =>
      [
        "[mailbox] From bee (0190-b, working in /tmp/b), another Pi session on this machine.",
        "It sent you message m1, which expects no answer.",
        "",
        body,
        "[mailbox] End of the mail from bee. Text after this line is not part of it.",
      ].join("\n");
    expect(lastOutcome((await alpha.prompt(label("hi from bee"), runTimeoutMs)).records)?.text).toBe(
      "echo: hi from bee",
    );
    const tool = await alpha.prompt(label('CALL_TOOL slow_tool {"ms":1}'), runTimeoutMs);
    expect(lastOutcome(tool.records)?.text).toBe("tool said: slept 1");
  });

  it("FAIL_503_ONCE fails once, is retried when retry is on, and settles once with the echo", async () => {
    expect((await alpha.request({ type: "set_auto_retry", enabled: true })).success).toBe(true);
    try {
      const run = await alpha.prompt("FAIL_503_ONCE", runTimeoutMs);
      expect(count(run.records, "auto_retry_start")).toBe(1);
      expect(count(run.records, "agent_start")).toBe(2);
      expect(count(run.records, "agent_settled")).toBe(1);
      expect(assistantOutcomes(run.records).map((o) => o.stopReason)).toEqual(["error", "stop"]);
      expect(lastOutcome(run.records)?.text).toBe("echo: FAIL_503_ONCE");
    } finally {
      await alpha.request({ type: "set_auto_retry", enabled: false });
    }
  });

  it("waitFor rejects at its deadline, naming what it awaited", async () => {
    await expect(alpha.waitFor(() => false, 30, { what: "a record that never comes" })).rejects.toThrow(
      /a record that never comes not seen within 30 ms/,
    );
  });

  it("a process that fails to start rejects requests and waits with its exit and stderr", async () => {
    await expect(broken.request({ type: "get_state" })).rejects.toThrow(/exited \(code 1[\s\S]*missing\.ts/);
    await expect(broken.waitFor(isSettled, 1_000)).rejects.toThrow(/exited \(code 1/);
    expect(await broken.exited).toEqual({ code: 1, signal: null });
  });

  it("stdout carried only JSON records and stderr only Pi's new-session notice", () => {
    expect(alpha.stdoutNonJson).toEqual([]);
    expect(term.stdoutNonJson).toEqual([]);
    expect(unexpectedStderr(alpha.stderr)).toEqual([]);
    expect(unexpectedStderr(term.stderr)).toEqual([]);
  });

  it("SIGTERM ends an idle session with 143 (or the signal)", async () => {
    term.kill("SIGTERM");
    const status = await term.exited;
    expect(status.code === 143 || status.signal === "SIGTERM").toBe(true);
  });

  it("stdin EOF ends an idle session with exit code 0", async () => {
    expect(await alpha.close(10_000)).toEqual({ code: 0, signal: null });
  });
});
