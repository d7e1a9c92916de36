// What session-bus registers with Pi when it loads, before any of its work is loaded: the names, the
// `session` tool's schema and words, the notice's message type and the join API's channels. The rest
// (core.ts) is loaded on first use and answers through these registrations.
import type { TObject } from "typebox";
import { inboxLimitDefault, inboxLimitMax, messageTextCharsMax } from "../../domain/bus/limits.js";

const actions = ["status", "send", "inbox", "claim", "release", "accept", "join"] as const;
type Action = (typeof actions)[number];

export interface SessionParams {
  action: Action;
  label?: string;
  to?: string;
  text?: string;
  kind?: "message" | "event" | "ask" | "handoff";
  paths?: string[];
  limit?: number;
  wake?: boolean;
  listen?: boolean;
  observe?: boolean;
  id?: string;
}

// Plain JSON Schema (Pi validates any JSON Schema): typebox stays out of the bundle and of every start.
const parameters = {
  type: "object",
  additionalProperties: false,
  required: ["action"],
  properties: {
    action: { type: "string", enum: [...actions], description: "What to do" },
    label: { type: "string", description: "join: the label peers address this session by (also Pi's session name)" },
    to: { type: "string", description: 'send: a label, a full session id, or "*" (kind event only)' },
    text: { type: "string", description: `send: the message, at most ${messageTextCharsMax} characters` },
    kind: { type: "string", enum: ["message", "event", "ask", "handoff"], description: "send: default message" },
    paths: {
      type: "array",
      items: { type: "string" },
      description: "claim, release: files or directories; send: the paths the message concerns",
    },
    limit: {
      type: "integer",
      minimum: 1,
      maximum: inboxLimitMax,
      description: `inbox: messages to read, oldest first (default ${inboxLimitDefault})`,
    },
    wake: { type: "boolean", description: "join: new mail raises a turn as soon as this session is idle" },
    listen: { type: "boolean", description: "join: false joins without listening for mail" },
    id: { type: "string", description: "accept: the id of the handoff whose offered claims to take" },
    observe: {
      type: "boolean",
      description: "join: false stops this session's edits from claiming the files they touch",
    },
  },
} as unknown as TObject;

/** The `session` tool as Pi lists it: everything but its execute and renderers. */
export const sessionToolMeta = {
  name: "session",
  label: "Bus: sessions on this repository",
  description: `Coordinate with the other Pi sessions on this repository. status: who is on the bus, their unread mail and claimed paths. send: a short message to a label or id (kind message, event, ask or handoff; to "*" for an event to everyone). inbox: read and consume your mail, oldest first. claim / release: hold files or directories before editing them; another session's edit, write or claim of a path you hold is refused, naming you, and yours of theirs. accept: take the claims a handoff offered you. join: go on the bus under a label, and listen for mail (wake: true raises a turn when mail comes).`,
  promptSnippet: "see and message the other Pi sessions on this repository, and claim paths before editing",
  promptGuidelines: [
    "Claim the files you will edit with session claim before editing them, and release them when done.",
    "When a bus notice says you have mail, read it with session inbox at your next coordination point.",
    "Use the session tool for coordinating work on this repository (claims, events for everyone, handoffs of claimed files); for a question whose answer you need, or a task handed to one session, use session_mail_ask or session_mail_send: a bus ask does not wait for its answer.",
  ],
  parameters,
  executionMode: "sequential" as const,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
};

/** `/sessions`. */
export const sessionsCommand = {
  name: "sessions",
  description: "The sessions on this repository's bus, this session's unread mail, and every claim",
};

/** The custom message type of bus notices (their renderer, and what `context` prunes). */
export const noticeType = "session-bus";

/** The join API's request channel, and the channel that announces every label. */
export const joinChannel = "session-bus:join";
export { sessionLabelChannel as labelChannel } from "../shared/roster.js";
