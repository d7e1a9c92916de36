// What session-bus registers, what it does at session_start (nothing on the bus, not even the git
// call), PI_DISABLED_EXTENSIONS for both extensions, and the two extensions side by side on one
// event bus with no module state between them.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import sessionBus from "../../../src/pi/bus/index.js";
import sessionMail from "../../../src/pi/mail/index.js";
import { restoreEnv } from "../../shared/pi-env-sandbox.js";
import { createFakeContext, createFakePi, type FakePi } from "../fake-pi.js";
import { runningRecord } from "../mail/mail-files.js";
import { ids, type Mode, textOf, useBusSandbox } from "./bus-session.js";

const sandbox = useBusSandbox();
const modes: Mode[] = ["tui", "rpc", "json", "print"];

function registered(fake: FakePi) {
  return {
    handlers: [...fake.handlers.keys()].sort(),
    tools: [...fake.tools.keys()].sort(),
    commands: [...fake.commands.keys()].sort(),
    renderers: [...fake.renderers.keys()].sort(),
  };
}

describe("registration", () => {
  it("registers one tool `session`: sequential, read-write, destructive, closed-world, plain JSON Schema with action required and no other fields", async () => {
    const alice = sandbox.session(ids.alice);
    expect([...alice.pi.tools.keys()]).toEqual(["session"]);
    const tool = alice.pi.tools.get("session");
    expect(tool?.executionMode).toBe("sequential");
    expect(tool?.annotations).toEqual({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    const schema = tool?.parameters as unknown as Record<string, unknown>;
    // Plain JSON: no TypeBox kind symbols, and it survives a JSON round trip unchanged.
    expect(Object.getOwnPropertySymbols(schema)).toEqual([]);
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(schema).toMatchObject({ type: "object", additionalProperties: false, required: ["action"] });
    const properties = schema.properties as Record<string, { enum?: string[] }>;
    expect(Object.keys(properties).sort()).toEqual(
      ["action", "id", "kind", "label", "limit", "listen", "observe", "paths", "text", "to", "wake"].sort(),
    );
    expect(properties.action?.enum).toEqual(["status", "send", "inbox", "claim", "release", "accept", "join"]);
    expect(properties.kind?.enum).toEqual(["message", "event", "ask", "handoff"]);
    expect(properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 50 });
    expect(typeof tool?.renderCall).toBe("function");
    expect(typeof tool?.renderResult).toBe("function");
  });

  it("tells the model in one guideline when to use the bus and when mail, and that a bus ask does not wait", () => {
    const tool = sandbox.session(ids.alice).pi.tools.get("session");
    const choosing = tool?.promptGuidelines?.filter((line) => line.includes("session_mail_ask")) ?? [];
    expect(choosing).toHaveLength(1);
    expect(choosing[0]).toContain("claims, events for everyone, handoffs of claimed files");
    expect(choosing[0]).toContain("a bus ask does not wait for its answer");
  });

  it("registers /sessions, the notice renderer, and the hooks that load the rest when it is needed; nothing else", () => {
    const alice = sandbox.session(ids.alice);
    expect(registered(alice.pi)).toEqual({
      handlers: ["context", "session_shutdown", "session_start", "tool_call"],
      tools: ["session"],
      commands: ["sessions"],
      renderers: ["session-bus"],
    });
  });

  it("loads its core at the first bus action or guarded tool, not at start, a prompt or a read", async () => {
    for (const first of ["session", "edit"] as const) {
      // A fresh module each time: nothing before has loaded the core in it.
      vi.resetModules();
      const { default: freshBus } = await import("../../../src/pi/bus/index.js");
      const pi = createFakePi();
      freshBus(pi.api);
      const context = createFakeContext(ids.alice, sandbox.repo);
      await pi.fire("session_start", { reason: "startup" }, context);
      await pi.fire("tool_call", { toolCallId: "t0", toolName: "read", input: { path: "README.md" } }, context);
      await pi.fire("context", { messages: [{ role: "user", content: "hi" }] }, context);
      expect(pi.handlers.has("agent_start")).toBe(false);
      if (first === "session") {
        await pi.tools
          .get("session")
          ?.execute("t1", { action: "status" } as never, undefined, undefined, context.ctx as never);
      } else {
        await pi.fire("tool_call", { toolCallId: "t1", toolName: "edit", input: { path: "a.ts", edits: [] } }, context);
      }
      expect(pi.handlers.has("agent_start")).toBe(true);
      await pi.fire("session_shutdown", { reason: "quit" }, context);
    }
  });
});

describe("session_start", () => {
  let bin = "";
  let savedPath: string | undefined;
  beforeEach(() => {
    // A git on PATH that logs each call, then runs the real one.
    savedPath = process.env.PATH;
    bin = join(sandbox.dir, "bin");
    mkdirSync(bin);
    const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
    writeFileSync(join(bin, "git"), `#!/bin/sh\necho "$*" >> "${join(sandbox.dir, "git.log")}"\nexec "${real}" "$@"\n`);
    chmodSync(join(bin, "git"), 0o755);
    process.env.PATH = `${bin}:${savedPath ?? ""}`;
  });
  afterEach(() => restoreEnv("PATH", savedPath));
  const gitCalls = () => {
    const log = join(sandbox.dir, "git.log");
    return existsSync(log) ? readFileSync(log, "utf8").trim().split("\n") : [];
  };

  it.each(modes)(
    "in %s mode puts nothing on the bus and runs no git, through a whole run without a bus action",
    async (mode) => {
      const alice = await sandbox.started(ids.alice, { mode });
      await alice.prompt();
      await alice.agentStart();
      await alice.modelContext([{ role: "user", content: "hello", timestamp: 0 }]);
      await alice.settle(false);
      expect(existsSync(join(sandbox.agentDir, "session-bus"))).toBe(false);
      expect(gitCalls()).toEqual([]);
      expect(alice.labels).toEqual([]);
      expect(alice.pi.sent).toEqual([]);
      expect(alice.context.notices).toEqual([]);
      // The first use makes the engine: one git call, and still no record (status only reads).
      await alice.tool({ action: "status" });
      expect(gitCalls()).toEqual([expect.stringMatching(/rev-parse/)]);
      expect(sandbox.records()).toEqual([]);
      await alice.tool({ action: "status" });
      expect(gitCalls()).toHaveLength(1);
    },
  );
});

describe("PI_DISABLED_EXTENSIONS", () => {
  const saved = process.env.PI_DISABLED_EXTENSIONS;
  afterEach(() => restoreEnv("PI_DISABLED_EXTENSIONS", saved));

  it.each(["session-bus", "SESSION-Bus", "session-mail,session-bus", " other  session-bus ", "x,\tsession-bus\n"])(
    "%j makes session-bus register nothing, and session-bus:join stays unanswered",
    (listed) => {
      process.env.PI_DISABLED_EXTENSIONS = listed;
      const fake = createFakePi();
      sessionBus(fake.api);
      expect(registered(fake)).toEqual({ handlers: [], tools: [], commands: [], renderers: [] });
      const payload: Record<string, unknown> = { label: "billing-core" };
      fake.api.events.emit("session-bus:join", payload);
      expect(payload).toEqual({ label: "billing-core" });
    },
  );

  it.each(["session-mail", "session-bus-extra", "session_bus", "bus"])("%j leaves session-bus alone", (listed) => {
    process.env.PI_DISABLED_EXTENSIONS = listed;
    const fake = createFakePi();
    sessionBus(fake.api);
    expect(registered(fake).tools).toEqual(["session"]);
    expect(registered(fake).commands).toEqual(["sessions"]);
  });

  it("session-mail honours it the same way: named, it registers nothing; session-bus named, it registers its tools", () => {
    process.env.PI_DISABLED_EXTENSIONS = "Session-Mail";
    const off = createFakePi();
    sessionMail(off.api);
    expect(registered(off)).toEqual({ handlers: [], tools: [], commands: [], renderers: [] });
    process.env.PI_DISABLED_EXTENSIONS = "session-bus";
    const on = createFakePi();
    sessionMail(on.api);
    expect(registered(on).tools).toEqual([
      "session_mail_ask",
      "session_mail_list",
      "session_mail_reply",
      "session_mail_send",
    ]);
    expect(registered(on).commands).toEqual(["mailbox"]);
  });
});

describe("both extensions on one event bus", () => {
  const saved = process.env.PI_DISABLED_EXTENSIONS;
  afterEach(() => restoreEnv("PI_DISABLED_EXTENSIONS", saved));
  const mailRoot = () => join(sandbox.dir, "state", "pi-session-mail");

  it("side by side, each registers its own; a labelled join renames the session for mail through Pi, not through shared state", async () => {
    const alice = await sandbox.started(ids.alice, { loadBefore: sessionMail });
    expect([...alice.pi.tools.keys()].sort()).toEqual([
      "session",
      "session_mail_ask",
      "session_mail_list",
      "session_mail_reply",
      "session_mail_send",
    ]);
    expect(runningRecord(mailRoot(), ids.alice)?.name).toBeUndefined();
    await alice.tool({ action: "join", label: "billing-core" });
    // setSessionName fires session_info_changed: session-mail hears it as it would from /name.
    expect(runningRecord(mailRoot(), ids.alice)?.name).toBe("billing-core");
    expect(sandbox.records().map((r) => r.label)).toEqual(["billing-core"]);
  });

  it("the bus works with session-mail disabled", async () => {
    process.env.PI_DISABLED_EXTENSIONS = "session-mail";
    const alice = await sandbox.started(ids.alice, { loadBefore: sessionMail });
    const bob = await sandbox.started(ids.bob, { loadBefore: sessionMail });
    expect([...alice.pi.tools.keys()]).toEqual(["session"]);
    expect(runningRecord(mailRoot(), ids.alice)).toBeUndefined();
    const send: Record<string, unknown> = { to: ids.bob, body: "hello" };
    alice.pi.api.events.emit("message:send", send);
    expect(send).toEqual({ to: ids.bob, body: "hello" });
    const request: Record<string, unknown> = { label: "billing-core" };
    alice.pi.api.events.emit("session-bus:join", request);
    expect(request.result).toEqual({ id: ids.alice, label: "billing-core", listening: true, wake: false });
    expect(textOf(await bob.tool({ action: "send", to: "billing-core", text: "hi" }))).toMatch(/^Sent message /);
    expect(sandbox.inbox(ids.alice)).toHaveLength(1);
  });

  it("mail works with session-bus disabled", async () => {
    process.env.PI_DISABLED_EXTENSIONS = "session-bus";
    const alice = await sandbox.started(ids.alice, { loadBefore: sessionMail });
    expect([...alice.pi.tools.keys()]).not.toContain("session");
    expect(runningRecord(mailRoot(), ids.alice)).toMatchObject({ address: ids.alice });
    const request: Record<string, unknown> = { label: "billing-core" };
    alice.pi.api.events.emit("session-bus:join", request);
    expect(request).toEqual({ label: "billing-core" });
    expect(existsSync(join(sandbox.agentDir, "session-bus"))).toBe(false);
  });
});
