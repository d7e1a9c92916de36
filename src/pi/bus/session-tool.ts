// The `session` tool: every action of the bus in one action-shaped tool. A refusal throws (Pi hands
// the model the words as a tool error) and writes nothing; a result is the model's text, the rows as
// details, and one summary line a person sees collapsed.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import type { Result } from "neverthrow";
import { type BusError, describeBusError } from "../../domain/bus/bus-errors.js";
import type { BusEngine, JoinRequest } from "../../domain/bus/engine/index.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";
import { lineComponent } from "../shared/line-component.js";
import { renderToolResult, type ViewTheme } from "../shared/tool-view.js";
import { type SessionParams, sessionToolMeta } from "./registrations.js";
import { mailFacts } from "./roster.js";
import type { ShortIds } from "./short-ids.js";
import { statusText, viewIds } from "./status-text.js";
import {
  type ActionText,
  acceptText,
  claimText,
  inboxIds,
  inboxText,
  joinText,
  releaseText,
  sendIds,
  sendText,
} from "./texts.js";

/** What the tool needs of the extension: the engine, and the join that also names Pi's session. */
export interface BusAccess {
  /** The engine, made on first use; `quiet`: a guard's look, which tells nobody the bus is off. */
  engine(quiet?: boolean): BusEngine | undefined;
  join(request: JoinRequest): ReturnType<BusEngine["join"]>;
  /** After any action: the label may have changed (an implicit join), which the extension announces. */
  changed(): void;
  /** The session ids this extension knows, to show each as a short prefix. */
  shortIds: ShortIds;
  /** A guard (the edit check, the shell and git guards) could not read the claims and let the call
   * through: the person is told, once per session per `key`, in `text`. */
  guardFailed(key: string, text: string): void;
}

function run(pi: ExtensionAPI, access: BusAccess, params: SessionParams): { outcome: ActionText; data: unknown } {
  const engine = access.engine();
  if (engine === undefined) throw new Error("The bus is not running in this session.");
  const done = <T>(result: Result<T, BusError>, text: (value: T) => ActionText) => {
    if (result.isErr()) throw new Error(describeBusError(result.error));
    const outcome = text(result.value);
    return { outcome, data: outcome.data ?? (result.value as unknown) };
  };
  const { shortIds } = access;
  switch (params.action) {
    case "status":
      return done(engine.status(), (view) => {
        shortIds.listed(viewIds(view));
        return statusText(view, undefined, mailFacts(pi));
      });
    case "send":
      return done(engine.send({ to: params.to, text: params.text, kind: params.kind, paths: params.paths }), (r) =>
        sendText(r, shortIds.among(sendIds(r))),
      );
    case "inbox":
      return done(engine.inbox(params.limit), (read) => inboxText(read, shortIds.among(inboxIds(read))));
    case "claim":
      return done(engine.claim(params.paths ?? []), claimText);
    case "release":
      return done(engine.release(params.paths ?? []), releaseText);
    case "accept":
      if (params.id === undefined || params.id.trim() === "") throw new Error("Missing id: nothing was taken.");
      return done(engine.accept(params.id.trim()), (report) => acceptText(report, shortIds.among([report.from.id])));
    case "join":
      return done(
        access.join({ label: params.label, wake: params.wake, listen: params.listen, observe: params.observe }),
        (r) => joinText(r, shortIds.among([r.id])),
      );
    default: {
      const never: never = params.action;
      throw new Error(`Unknown action ${JSON.stringify(never)}.`);
    }
  }
}

function renderCall(raw: unknown, theme: ViewTheme) {
  const args = raw as Partial<SessionParams>;
  const target = args.to ?? args.label ?? (args.paths ?? []).join(", ");
  const what = [args.action ?? "", args.kind ?? "", target].filter((part) => part !== "").join(" ");
  // The model's own words, but a model can be steered into escape sequences: sanitized like a peer's.
  return lineComponent(
    `${theme.fg("toolTitle", theme.bold("session"))} ${theme.fg("accent", sanitizeField(what, 120))}`,
  );
}

export function registerSessionTool(pi: ExtensionAPI, access: BusAccess): void {
  pi.registerTool({
    ...sessionToolMeta,
    async execute(_id, raw) {
      // Pi validated the arguments against the schema above.
      const params = raw as unknown as SessionParams;
      try {
        const { outcome, data } = run(pi, access, params);
        // An inbox result names the messages it shows: the session's record of what reached the
        // model, which the bus reads back before it deletes them (or puts back what never did).
        const ids = params.action === "inbox" ? { ids: (data as { ids?: string[] }).ids ?? [] } : {};
        return {
          content: [{ type: "text" as const, text: outcome.text }],
          details: { action: params.action, summary: outcome.summary, result: data, ...ids },
        };
      } finally {
        access.changed();
      }
    },
    renderCall,
    renderResult: renderToolResult,
  });
}
