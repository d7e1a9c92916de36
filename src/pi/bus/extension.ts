// session-bus for Pi, the part loaded on first use (index.ts loads it; see there): what Pi calls.
// One bus per session (bus-runtime.ts keeps it). Nothing joins at session_start, in any mode.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { answerTurnHops } from "../shared/turn-hops.js";
import { createBusRuntime } from "./bus-runtime.js";
import { registerEditGuard } from "./edit-guard.js";
import { registerGitGuard } from "./git-guard.js";
import { provideJoin } from "./join-api.js";
import { noticeContent, noticeIds, noticeType } from "./notice.js";
import { renderNotice } from "./notice-view.js";
import { answerBusRoster } from "./roster.js";
import { registerSessionTool } from "./session-tool.js";
import { registerSessionsCommand } from "./sessions-command.js";
import { registerShellWatch } from "./shell-watch.js";
import { dropStaleNotices } from "./stale-notices.js";

export function sessionBusCore(pi: ExtensionAPI): void {
  const bus = createBusRuntime(pi);
  const { access } = bus;
  const shortIds = access.shortIds;
  const current = () => bus.live();
  answerTurnHops(pi.events, () => current()?.engine?.turnHops() ?? 0);

  pi.on("session_start", (event, piContext) => bus.sessionStart(event, piContext));
  pi.on("session_shutdown", (event) => bus.sessionShutdown(event));
  pi.on("session_info_changed", (event) => {
    // A derived label follows the name: a new one is announced, for the mailbox to write.
    current()?.engine?.renamed(event.name);
    access.changed();
  });
  pi.on("agent_start", () => current()?.engine?.runStarted());
  pi.on("agent_settled", (event) => current()?.engine?.runSettled(event.aborted));
  pi.on("before_agent_start", (event) => {
    // A run the bus's own wake started already carries its notice.
    if (event.messageType === "custom" && event.message.customType === noticeType) return undefined;
    const notice = current()?.engine?.promptStarting();
    if (notice === undefined) return undefined;
    const { content, details } = noticeContent(notice, shortIds.among(noticeIds(notice)));
    return { message: { customType: noticeType, content, display: true, details } };
  });
  pi.on("context", (event) => {
    const live = current();
    if (live === undefined) return undefined;
    // A resumed session carries notices from before: the engine is made for them (once).
    const messages = dropStaleNotices(event.messages, () => bus.engineOf(live));
    return messages === event.messages ? undefined : { messages };
  });

  pi.registerMessageRenderer(noticeType, renderNotice);
  registerEditGuard(pi, access);
  registerSessionTool(pi, access);
  registerGitGuard(pi, access);
  registerShellWatch(pi, access);
  registerSessionsCommand(pi, access);
  provideJoin(pi, access);
  answerBusRoster(pi, access.engine);
}
