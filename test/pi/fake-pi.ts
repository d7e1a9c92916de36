// A fake Pi 1.6 ExtensionAPI and ExtensionContext for session-mail and session-bus. The API records
// what the extension registers and sends, and fires events the way Pi's runner does: every handler
// of the event, in registration order, each awaited. pi.events is Pi's real createEventBus behind
// the per-extension wrapper Pi gives (stale after replacement, its subscriptions dropped then).
import { randomUUID } from "node:crypto";
import {
  type CustomMessageEntry,
  createEventBus,
  type EventBus,
  type ExtensionAPI,
  type ExtensionCommandContext,
  type ExtensionContext,
  type MessageRenderer,
  type RegisteredCommand,
  type SessionMessageEntry,
  type ToolDefinition,
} from "@earendil-works/pi-coding-agent";

const staleMessage = "This extension ctx is stale after session replacement or reload.";

export interface SentMessage {
  customType: string;
  content: unknown;
  display: boolean;
  details: unknown;
  options: { triggerTurn?: boolean; deliverAs?: string } | undefined;
}

export interface Notice {
  text: string;
  level: string;
}

type AnyHandler = (event: unknown, ctx: ExtensionContext) => unknown;
type Command = Omit<RegisteredCommand, "name" | "sourceInfo">;

export interface FakePi {
  readonly api: ExtensionAPI;
  readonly bus: EventBus;
  readonly handlers: Map<string, AnyHandler[]>;
  readonly tools: Map<string, ToolDefinition>;
  readonly commands: Map<string, Command>;
  /** Message renderers by custom type. */
  readonly renderers: Map<string, MessageRenderer>;
  readonly sent: SentMessage[];
  /** Errors thrown by pi.events listeners (Pi reports them; they never reach the emitter). */
  readonly busErrors: unknown[];
  name: string | undefined;
  /** The context Pi hands to handlers now, and that setSessionName fires with. */
  current: FakeContext | undefined;
  /** What Pi does to the old runtime at replacement: every call throws, bus subscriptions go. */
  invalidate(): void;
  /** Runs every handler in order; returns what they returned (undefined left out). */
  fire(type: string, fields: object, ctx: FakeContext): Promise<unknown[]>;
}

export interface FakeContext {
  readonly ctx: ExtensionCommandContext;
  readonly notices: Notice[];
  readonly statuses: Array<{ key: string; text: string | undefined }>;
  readonly entries: Array<CustomMessageEntry | SessionMessageEntry>;
  /** Set when Pi replaced the session: every call throws, like Pi's stale ctx. */
  stale: boolean;
  /** ctx.mode: "tui", "rpc" (the default), "json" or "print". */
  mode: "tui" | "rpc" | "json" | "print";
  /** What ctx.isIdle() answers: false while Pi runs (or starts) the agent. */
  idle: boolean;
  /** ctx.ui.custom calls: each resolves undefined at once, as outside the TUI. */
  readonly customs: Array<{ factory: unknown; options: unknown }>;
}

export function createFakePi(bus: EventBus = createEventBus()): FakePi {
  let stale = false;
  const subscriptions = new Set<() => void>();
  const assertActive = () => {
    if (stale) throw new Error(staleMessage);
  };
  const fake: FakePi = {
    api: undefined as unknown as ExtensionAPI,
    bus,
    handlers: new Map(),
    tools: new Map(),
    commands: new Map(),
    renderers: new Map(),
    sent: [],
    busErrors: [],
    name: undefined,
    current: undefined,
    invalidate() {
      stale = true;
      for (const off of [...subscriptions]) off();
      subscriptions.clear();
    },
    async fire(type, fields, context) {
      const event = { type, ...fields };
      const results: unknown[] = [];
      for (const handler of [...(fake.handlers.get(type) ?? [])]) results.push(await handler(event, context.ctx));
      return results.filter((r) => r !== undefined);
    },
  };
  const api = {
    on(event: string, handler: AnyHandler) {
      assertActive();
      const list = fake.handlers.get(event) ?? [];
      list.push(handler);
      fake.handlers.set(event, list);
      return () =>
        fake.handlers.set(
          event,
          (fake.handlers.get(event) ?? []).filter((h) => h !== handler),
        );
    },
    registerTool(tool: ToolDefinition) {
      assertActive();
      fake.tools.set(tool.name, tool);
    },
    registerCommand(name: string, options: Command) {
      assertActive();
      fake.commands.set(name, options);
    },
    registerMessageRenderer(customType: string, renderer: MessageRenderer) {
      assertActive();
      fake.renderers.set(customType, renderer);
    },
    sendMessage(message: Omit<SentMessage, "options">, options?: SentMessage["options"]) {
      assertActive();
      const sent = { ...message, options: options === undefined ? undefined : { ...options } };
      fake.sent.push(sent);
      // Pi appends a message that starts no turn at once; a queued one when it enters (message_end).
      if (options?.triggerTurn !== true && fake.current !== undefined) persist(fake.current, sent);
    },
    getSessionName() {
      assertActive();
      return fake.name;
    },
    setSessionName(name: string) {
      assertActive();
      fake.name = name;
      if (fake.current !== undefined) void fake.fire("session_info_changed", { name }, fake.current);
    },
    events: {
      emit(channel: string, data: unknown) {
        assertActive();
        bus.emit(channel, data);
      },
      on(channel: string, handler: (data: unknown) => unknown) {
        assertActive();
        const off = bus.on(channel, async (data: unknown) => {
          try {
            await handler(data);
          } catch (error) {
            fake.busErrors.push(error);
          }
        });
        const tracked = () => {
          subscriptions.delete(tracked);
          off();
        };
        subscriptions.add(tracked);
        return tracked;
      },
    },
  };
  (fake as { api: ExtensionAPI }).api = api as unknown as ExtensionAPI;
  return fake;
}

export function createFakeContext(sessionId: string, cwd: string): FakeContext {
  const fake: FakeContext = {
    ctx: undefined as unknown as ExtensionCommandContext,
    notices: [],
    statuses: [],
    entries: [],
    stale: false,
    mode: "rpc",
    idle: true,
    customs: [],
  };
  const fresh = () => {
    if (fake.stale) throw new Error(staleMessage);
  };
  /** Every ctx member throws once the session was replaced, as Pi's stale ctx does. */
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      fresh();
      return fn(...args);
    };
  const ctx = {
    get mode() {
      return fake.mode;
    },
    hasUI: true,
    get cwd() {
      fresh();
      return cwd;
    },
    sessionManager: {
      getSessionId: guarded(() => sessionId),
      getEntries: guarded(() => [...fake.entries]),
      getCwd: guarded(() => cwd),
    },
    ui: {
      notify: guarded((text: string, level: string = "info") => void fake.notices.push({ text, level })),
      setStatus: guarded((key: string, text: string | undefined) => void fake.statuses.push({ key, text })),
      custom: guarded(async (factory: unknown, options?: unknown) => void fake.customs.push({ factory, options })),
    },
    isIdle: guarded(() => fake.idle),
    hasPendingMessages: () => false,
  };
  (fake as { ctx: ExtensionCommandContext }).ctx = ctx as unknown as ExtensionCommandContext;
  return fake;
}

/** What Pi keeps of a custom message in the session file. */
export function persist(context: FakeContext, sent: SentMessage): void {
  context.entries.push({
    type: "custom_message",
    id: randomUUID().slice(0, 8),
    parentId: null,
    timestamp: new Date().toISOString(),
    customType: sent.customType,
    content: sent.content as CustomMessageEntry["content"],
    display: sent.display,
    details: sent.details,
  });
}

/** The details session-mail puts on each message it injects. */
export interface MailDetails {
  mailId: string;
  kind: string;
  from: string;
  path: string;
}

export function mailDetails(sent: SentMessage): MailDetails | undefined {
  if (sent.customType !== "session-mail" || typeof sent.details !== "object" || sent.details === null) return undefined;
  const d = sent.details as Record<string, unknown>;
  if (typeof d.mailId !== "string" || typeof d.kind !== "string" || typeof d.from !== "string") return undefined;
  return { mailId: d.mailId, kind: d.kind, from: d.from, path: typeof d.path === "string" ? d.path : "" };
}

/** Polls a condition until it holds or the deadline passes; never a fixed sleep as synchronisation. */
export async function waitFor<T>(probe: () => T | undefined | false, what: string, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
