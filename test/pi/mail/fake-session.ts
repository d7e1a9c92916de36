// One fake Pi session with session-mail loaded, and the per-test sandbox: a fresh temp
// XDG_STATE_HOME and PI_CODING_AGENT_DIR (test/shared/pi-env-sandbox.ts), so the real node adapters
// write there, and every started session shut down afterwards (its watcher and poll timer closed)
// before the environment is put back.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { AgentToolResult, EventBus, ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { afterEach, beforeEach } from "vitest";
import sessionMail from "../../../src/pi/mail/index.js";
import { createPiEnvSandbox, type PiEnvSandbox } from "../../shared/pi-env-sandbox.js";
import {
  createFakeContext,
  createFakePi,
  type FakeContext,
  type FakePi,
  type MailDetails,
  mailDetails,
  type Notice,
  persist,
  type SentMessage,
  waitFor,
} from "../fake-pi.js";

/** One Pi session with the extension loaded: the helpers fire events as Pi does. */
export interface FakeSession {
  readonly id: string;
  readonly pi: FakePi;
  context: FakeContext;
  running: boolean;
  start(reason?: string): Promise<void>;
  shutdown(): Promise<void>;
  input(text: string): Promise<unknown>;
  agentStart(): Promise<unknown>;
  /** The injected mail entered the transcript (Pi's message_end for the custom message); returns
   * what the handlers returned (a replacement message, for instance). */
  enter(mailId: string): Promise<unknown[]>;
  assistant(text: string, stopReason?: string, errorMessage?: string): Promise<unknown>;
  settle(aborted: boolean): Promise<unknown>;
  /** A completed run: agent_start, every queued mail entered, the answer, agent_settled. */
  runDone(answer: string): Promise<void>;
  rename(name: string): Promise<void>;
  /** session-mail's injected messages so far, with their details. */
  mail(): Array<SentMessage & { mail: MailDetails }>;
  /** Waits for the injection of one envelope and returns it. */
  mailFor(mailId: string): Promise<SentMessage & { mail: MailDetails }>;
  tool(name: string, params: Record<string, unknown>, signal?: AbortSignal): Promise<AgentToolResult<unknown>>;
  command(args: string): Promise<void>;
  notices(): Notice[];
  /** The footer text last set under session-mail's key. */
  footer(): string | undefined;
}

export interface SessionOptions {
  name?: string;
  /** Share a bus with an earlier runtime (Pi keeps one bus per resource loader across reloads). */
  bus?: EventBus;
  /** Another extension loaded before session-mail, on the same API. */
  loadBefore?: (pi: ExtensionAPI) => void;
}

export function createFakeSession(options: SessionOptions & { id: string; cwd: string }): FakeSession {
  const pi = createFakePi(options.bus);
  pi.name = options.name;
  options.loadBefore?.(pi.api);
  sessionMail(pi.api);
  const entered = new Set<string>();
  const session: FakeSession = {
    id: options.id,
    pi,
    context: createFakeContext(options.id, options.cwd),
    running: false,
    async start(reason = "startup") {
      pi.current = session.context;
      session.running = true;
      await pi.fire("session_start", { reason }, session.context);
    },
    async shutdown() {
      if (!session.running) return;
      session.running = false;
      await pi.fire("session_shutdown", { reason: "quit" }, session.context);
    },
    input: (text) => pi.fire("input", { text, source: "rpc" }, session.context),
    agentStart: () => pi.fire("agent_start", {}, session.context),
    async enter(mailId) {
      const sent = session.mail().find((m) => m.mail.mailId === mailId);
      if (sent === undefined) throw new Error(`no mail ${mailId} was injected`);
      entered.add(mailId);
      if (sent.options?.triggerTurn === true) persist(session.context, sent);
      const message = { role: "custom", customType: sent.customType, content: sent.content, display: sent.display };
      return pi.fire(
        "message_end",
        { message: { ...message, details: sent.details, timestamp: Date.now() } },
        session.context,
      );
    },
    assistant(text, stopReason = "stop", errorMessage) {
      const message = {
        role: "assistant",
        content: text === "" ? [] : [{ type: "text", text }],
        stopReason,
        timestamp: Date.now(),
        ...(errorMessage === undefined ? {} : { errorMessage }),
      };
      return pi.fire("message_end", { message }, session.context);
    },
    settle: (aborted) => pi.fire("agent_settled", { aborted }, session.context),
    async runDone(answer) {
      await session.agentStart();
      for (const m of session.mail()) {
        if (m.options?.triggerTurn === true && !entered.has(m.mail.mailId)) await session.enter(m.mail.mailId);
      }
      await session.assistant(answer);
      await session.settle(false);
    },
    async rename(name) {
      pi.name = name;
      await pi.fire("session_info_changed", { name }, session.context);
    },
    mail: () =>
      pi.sent.flatMap((s) => {
        const mail = mailDetails(s);
        return mail === undefined ? [] : [{ ...s, mail }];
      }),
    mailFor: (mailId) =>
      waitFor(() => session.mail().find((m) => m.mail.mailId === mailId), `mail ${mailId} injected in ${options.id}`),
    tool(name, params, signal) {
      const tool = pi.tools.get(name);
      if (tool === undefined) throw new Error(`no tool ${name}`);
      return tool.execute("call-1", params, signal, undefined, session.context.ctx as never);
    },
    async command(args) {
      const command = pi.commands.get("mailbox");
      if (command === undefined) throw new Error("no /mailbox command");
      await command.handler(args, session.context.ctx);
    },
    notices: () => session.context.notices,
    footer: () => session.context.statuses.filter((s) => s.key === "session-mail").at(-1)?.text,
  };
  return session;
}

export { waitFor } from "../fake-pi.js";

export interface Sandbox {
  /** The mail root the node adapters use: $XDG_STATE_HOME/pi-session-mail. */
  readonly root: string;
  readonly agentDir: string;
  readonly dir: string;
  /** A session with the extension loaded (not started); shut down after the test. */
  session(id: string, options?: SessionOptions): FakeSession;
  /** Creates and starts a session. */
  started(id: string, options?: SessionOptions): Promise<FakeSession>;
}

/** Registers beforeEach/afterEach: a fresh temp state and agent dir per test, sessions shut down after. */
export function useSandbox(): Sandbox {
  const sessions: FakeSession[] = [];
  let env: PiEnvSandbox | undefined;
  let dir = "";
  const sandbox: Sandbox = {
    get root() {
      return join(dir, "state", "pi-session-mail");
    },
    get agentDir() {
      return join(dir, "agent");
    },
    get dir() {
      return dir;
    },
    session(id, options = {}) {
      const cwd = join(dir, "work", id.slice(0, 8));
      mkdirSync(cwd, { recursive: true });
      const session = createFakeSession({ id, cwd, ...options });
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
    env = createPiEnvSandbox("pi-mail-ext-");
    dir = env.dir;
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
