// session-bus for Pi. What Pi loads at its start is only this file's registrations: the `session`
// tool (its schema and words), /sessions, the notice renderer, the join API's channel, and a few
// event handlers that decide when the rest is needed. The rest, the core (core.ts, its own bundle
// file), is loaded at the first thing that needs it: a bus action, /sessions, a notice to render or to
// prune from the context, a join through the API, a /reload that keeps the membership, or the
// model's `edit`, `write` or `bash`, which the guards check. A session that never uses the bus
// never loads it; one that did loads it again at once in the sessions that follow (a /new, a
// /resume), where it may owe a word about the claims the last one released.
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { isDisabled } from "../shared/disabled.js";
import { busRosterChannel } from "../shared/roster.js";
import type { BusCore } from "./core.js";
import { loadCore } from "./load-core.js";
import { joinChannel, noticeType, sessionsCommand, sessionToolMeta } from "./registrations.js";

/** The model's tools a guard looks at before they run. */
const guardedTools = new Set(["edit", "write", "bash"]);

/** The core was loaded in this process (by this runtime or an earlier one): attaching is cheap now. */
let coreLoaded = false;

type Block = { block?: boolean } | undefined;

export default function sessionBus(pi: ExtensionAPI): void {
  if (isDisabled("session-bus")) return;
  let core: BusCore | undefined;
  /** This runtime's session_start, for a core attached later: it never saw it. */
  let started: { event: unknown; piContext: ExtensionContext } | undefined;

  const attach = (): BusCore => {
    if (core !== undefined) return core;
    core = loadCore()(pi);
    coreLoaded = true;
    // Pi calls the core's handlers from the next event on; the start it missed is handed over now.
    if (started !== undefined) for (const handler of core.handlers("session_start")) handler(...args(started));
    return core;
  };

  pi.registerTool({
    ...sessionToolMeta,
    execute: (...call) => attach().tool.execute(...call),
    renderCall: (...call) => attach().tool.renderCall?.(...call) as never,
    renderResult: (...call) => attach().tool.renderResult?.(...call) as never,
  });
  pi.registerCommand(sessionsCommand.name, {
    description: sessionsCommand.description,
    handler: (text, piContext) => attach().command(text, piContext),
  });
  pi.registerMessageRenderer(noticeType, (...call) => attach().renderNotice(...call));
  pi.events.on(joinChannel, (data) => attach().join(data));
  // The mailbox lists sessions with their bus facts: a listing is a use of the bus.
  pi.events.on(busRosterChannel, (data) => attach().roster(data));

  pi.on("session_start", (event, piContext) => {
    started = { event, piContext };
    if (core === undefined && (coreLoaded || event.reason === "reload")) attach();
  });
  pi.on("session_shutdown", () => {
    started = undefined;
  });
  pi.on("tool_call", async (event, piContext) => {
    if (core !== undefined || !guardedTools.has(event.toolName)) return undefined;
    // As Pi runs them: in order, the first block wins, and each sees the input its forerunners changed.
    let result: Block;
    for (const handler of attach().handlers("tool_call")) {
      const returned = (await handler(...args({ event, piContext }))) as Block;
      if (returned === undefined) continue;
      result = returned;
      if (returned.block === true) return returned as never;
    }
    return result as never;
  });
  pi.on("context", async (event, piContext) => {
    if (core !== undefined || !event.messages.some(isNotice)) return undefined;
    let messages = event.messages;
    for (const handler of attach().handlers("context")) {
      const returned = (await handler(...args({ event: { ...event, messages }, piContext }))) as
        | { messages?: typeof messages }
        | undefined;
      messages = returned?.messages ?? messages;
    }
    return messages === event.messages ? undefined : { messages };
  });
}

const isNotice = (message: unknown): boolean =>
  typeof message === "object" && message !== null && (message as { customType?: unknown }).customType === noticeType;

/** A handler's arguments, as the core's handlers take them. */
const args = (call: { event: unknown; piContext: ExtensionContext }) => [call.event, call.piContext] as [never, never];
