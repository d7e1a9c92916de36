// One fake Pi session with session-bus loaded, and the per-test sandbox: a `git init` repository as
// the cwd and a fresh PI_CODING_AGENT_DIR and XDG_STATE_HOME (test/shared/pi-env-sandbox.ts), so the
// real node wiring (git, fs, /proc, fs.watch) puts the bus under `<agent dir>/session-bus/<key>/`;
// every started session is shut down afterwards, before the environment is put back.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentToolResult, EventBus, ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach } from "vitest";
import sessionBus from "../../../src/pi/bus/index.js";
import { createPiEnvSandbox, type PiEnvSandbox } from "../../shared/pi-env-sandbox.js";
import { createFakeContext, createFakePi, type FakeContext, type FakePi, type SentMessage } from "../fake-pi.js";

export type Mode = FakeContext["mode"];

export interface LabelEvent {
  id: string;
  label: string | undefined;
}

export interface BusSession {
  readonly id: string;
  readonly pi: FakePi;
  context: FakeContext;
  running: boolean;
  /** Every `session-label` event seen on this session's pi.events, in order. */
  readonly labels: LabelEvent[];
  start(reason?: string): Promise<void>;
  shutdown(reason?: string): Promise<void>;
  /** Runs the `session` tool as Pi does: a throw is the refusal the model reads. */
  tool(params: Record<string, unknown>): Promise<AgentToolResult<unknown>>;
  /** The refusal's words, failing the test when the action succeeds. */
  refusal(params: Record<string, unknown>): Promise<string>;
  command(args?: string): Promise<void>;
  /** before_agent_start for a prompt the user typed; returns what the handlers returned. */
  prompt(text?: string): Promise<unknown[]>;
  /** before_agent_start for a run a custom message started (a wake notice). */
  customRun(message: SentMessage): Promise<unknown[]>;
  agentStart(): Promise<unknown[]>;
  settle(aborted: boolean): Promise<unknown[]>;
  /** The `context` handlers over these messages: the list Pi would send (the same one when unchanged). */
  modelContext(messages: unknown[]): Promise<unknown[]>;
  /** The bus notices raised as a turn (sendMessage with triggerTurn). */
  wakes(): SentMessage[];
}

export interface BusSessionOptions {
  name?: string;
  cwd?: string;
  mode?: Mode;
  /** Share an event bus with an earlier runtime (a reload keeps it) or with other extensions. */
  bus?: EventBus;
  /** Extensions loaded on the same API before session-bus. */
  loadBefore?: (pi: ExtensionAPI) => void;
}

export const textOf = (result: AgentToolResult<unknown>): string =>
  result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");

export function createBusSession(options: BusSessionOptions & { id: string; cwd: string }): BusSession {
  const pi = createFakePi(options.bus);
  pi.name = options.name;
  options.loadBefore?.(pi.api);
  sessionBus(pi.api);
  const labels: LabelEvent[] = [];
  pi.api.events.on("session-label", (data) => void labels.push({ ...(data as LabelEvent) }));
  const context = createFakeContext(options.id, options.cwd);
  context.mode = options.mode ?? "rpc";
  const fire = (type: string, fields: object = {}) => pi.fire(type, fields, session.context);
  const session: BusSession = {
    id: options.id,
    pi,
    context,
    running: false,
    labels,
    async start(reason = "startup") {
      pi.current = session.context;
      session.running = true;
      await fire("session_start", { reason });
    },
    async shutdown(reason = "quit") {
      if (!session.running) return;
      session.running = false;
      await fire("session_shutdown", { reason });
    },
    async tool(params) {
      const tool = pi.tools.get("session");
      if (tool === undefined) throw new Error("no session tool");
      const result = await tool.execute("call-1", params as never, undefined, undefined, session.context.ctx as never);
      // Pi records the tool result in the session once it returns: the bus reads it back.
      session.context.entries.push({
        type: "message",
        id: `tool-${session.context.entries.length}`,
        parentId: null,
        timestamp: new Date().toISOString(),
        message: {
          role: "toolResult",
          toolCallId: "call-1",
          toolName: "session",
          content: result.content,
          details: result.details,
          isError: false,
          timestamp: Date.now(),
        },
      } as never);
      return result;
    },
    async refusal(params) {
      try {
        await session.tool(params);
      } catch (error) {
        return error instanceof Error ? error.message : String(error);
      }
      throw new Error(`session ${JSON.stringify(params)} succeeded`);
    },
    async command(args = "") {
      const command = pi.commands.get("sessions");
      if (command === undefined) throw new Error("no /sessions command");
      await command.handler(args, session.context.ctx);
    },
    prompt: (text = "hello") => fire("before_agent_start", { prompt: text, systemPrompt: "", messageType: "user" }),
    customRun: (message) =>
      fire("before_agent_start", {
        prompt: "",
        systemPrompt: "",
        messageType: "custom",
        message: { role: "custom", ...message, timestamp: Date.now() },
      }),
    agentStart: () => fire("agent_start"),
    settle: (aborted) => fire("agent_settled", { aborted }),
    async modelContext(messages) {
      const results = (await fire("context", { messages })) as Array<{ messages?: unknown[] }>;
      return results.at(-1)?.messages ?? messages;
    },
    wakes: () => pi.sent.filter((m) => m.customType === "session-bus" && m.options?.triggerTurn === true),
  };
  return session;
}

export { waitFor } from "../fake-pi.js";

export interface BusSandbox {
  readonly dir: string;
  /** The `git init` repository every session works in unless told otherwise. */
  readonly repo: string;
  readonly agentDir: string;
  /** `<agent dir>/session-bus/<key>` once something made it, else undefined. */
  busDir(): string | undefined;
  /** The records in sessions/, parsed. */
  records(): Array<Record<string, unknown>>;
  /** The file names in claims/. */
  claims(): string[];
  /** The file names in one session's inbox. */
  inbox(id: string): string[];
  session(id: string, options?: BusSessionOptions): BusSession;
  started(id: string, options?: BusSessionOptions): Promise<BusSession>;
}

function listed(dir: string | undefined, sub: string): string[] {
  if (dir === undefined || !existsSync(join(dir, sub))) return [];
  return readdirSync(join(dir, sub)).sort();
}

export function useBusSandbox(): BusSandbox {
  const sessions: BusSession[] = [];
  let env: PiEnvSandbox | undefined;
  let dir = "";
  const sandbox: BusSandbox = {
    get dir() {
      return dir;
    },
    get repo() {
      return join(dir, "repo");
    },
    get agentDir() {
      return join(dir, "agent");
    },
    busDir() {
      const keys = listed(sandbox.agentDir, "session-bus");
      if (keys.length > 1) throw new Error(`more than one bus: ${keys.join(", ")}`);
      return keys[0] === undefined ? undefined : join(sandbox.agentDir, "session-bus", keys[0]);
    },
    records: () =>
      listed(sandbox.busDir(), "sessions")
        .filter((name) => name.endsWith(".json"))
        .map((name) => JSON.parse(readFileSync(join(sandbox.busDir() ?? "", "sessions", name), "utf8"))),
    claims: () => listed(sandbox.busDir(), "claims"),
    inbox: (id) => listed(sandbox.busDir(), join("inbox", id)),
    session(id, options = {}) {
      const session = createBusSession({ id, ...options, cwd: options.cwd ?? sandbox.repo });
      sessions.push(session);
      return session;
    },
    async started(id, options = {}) {
      const session = sandbox.session(id, options);
      await session.start();
      return session;
    },
  };
  beforeEach(() => {
    env = createPiEnvSandbox("pi-bus-ext-");
    dir = env.dir;
    mkdirSync(join(dir, "repo"), { recursive: true });
    execFileSync("git", ["init", "-q", join(dir, "repo")]);
  });
  afterEach(async () => {
    for (const session of sessions.splice(0)) {
      session.context.stale = false;
      await session.shutdown();
    }
    env?.dispose();
    env = undefined;
  });
  return sandbox;
}

/** Session ids shaped like Pi's (UUIDv7); the derived-label suffix is their last hex digits. */
export const ids = {
  alice: "0190a1a1-7f64-7000-8000-00000000a11c",
  bob: "0190a1a1-809c-7000-8000-000000000b0b",
  carol: "0190a1a1-809d-7000-8000-00000000ca01",
} as const;
