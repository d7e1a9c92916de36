// The part of session-bus loaded on first use: everything the session tool, /sessions, the notices,
// the join API and the guards do. index.ts registers what Pi must see at start, with the words of
// registrations.ts, and hands its work here once there is some. Attached to a Pi API, this runs the
// extension's composition root against a view of that API that keeps what index.ts registered
// already (the tool, the command, the renderer, the join channel) for index.ts to call, and passes
// every event handler to Pi, which calls it from the next event on.
import type {
  ExtensionAPI,
  ExtensionCommandContext,
  MessageRenderer,
  RegisteredCommand,
  ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { busRosterChannel } from "../shared/roster.js";
import { sessionBusCore } from "./extension.js";
import { joinChannel, sessionsCommand, sessionToolMeta } from "./registrations.js";

type Handler = (event: never, piContext: never) => unknown;

export interface BusCore {
  tool: {
    execute: ToolDefinition["execute"];
    renderCall: ToolDefinition["renderCall"] | undefined;
    renderResult: ToolDefinition["renderResult"] | undefined;
  };
  command(args: string, piContext: ExtensionCommandContext): Promise<void>;
  renderNotice: MessageRenderer;
  join(data: unknown): void;
  /** Answers the mailbox's question for the bus's half of the roster. */
  roster(data: unknown): void;
  /** The handlers it gave Pi for `event`, in order: index.ts runs them for the event that loaded it,
   * which Pi had begun before they existed. */
  handlers(event: string): Handler[];
}

export function attachBusCore(pi: ExtensionAPI): BusCore {
  let tool: ToolDefinition | undefined;
  let command: Omit<RegisteredCommand, "name" | "sourceInfo"> | undefined;
  let renderNotice: MessageRenderer | undefined;
  let join: ((data: unknown) => void) | undefined;
  let roster: ((data: unknown) => void) | undefined;
  const handlers = new Map<string, Handler[]>();
  const events = {
    emit: (channel: string, data: unknown) => pi.events.emit(channel, data),
    on(channel: string, handler: (data: unknown) => void) {
      if (channel === joinChannel) join = handler;
      else if (channel === busRosterChannel) roster = handler;
      else return pi.events.on(channel, handler);
      return () => {};
    },
  };
  const view = new Proxy(pi, {
    get(target, property) {
      switch (property) {
        case "on":
          return (event: string, handler: Handler) => {
            handlers.set(event, [...(handlers.get(event) ?? []), handler]);
            return target.on(event as never, handler as never);
          };
        case "registerTool":
          return (definition: ToolDefinition) => {
            if (definition.name === sessionToolMeta.name) tool = definition;
          };
        case "registerCommand":
          return (name: string, definition: NonNullable<typeof command>) => {
            if (name === sessionsCommand.name) command = definition;
          };
        case "registerMessageRenderer":
          return (_type: string, renderer: MessageRenderer) => {
            renderNotice = renderer;
          };
        case "events":
          return events;
        default: {
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        }
      }
    },
  });
  sessionBusCore(view);
  if (
    tool === undefined ||
    command === undefined ||
    renderNotice === undefined ||
    join === undefined ||
    roster === undefined
  ) {
    throw new Error("session-bus: its core registered less than its entry forwards to");
  }
  const registered = { tool, command, renderNotice, join, roster };
  return {
    tool: {
      execute: (...args) => registered.tool.execute(...args),
      renderCall: registered.tool.renderCall,
      renderResult: registered.tool.renderResult,
    },
    command: (args, piContext) => Promise.resolve(registered.command.handler(args, piContext)),
    renderNotice: registered.renderNotice,
    join: registered.join,
    roster: registered.roster,
    handlers: (event) => handlers.get(event) ?? [],
  };
}
