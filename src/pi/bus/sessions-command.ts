// `/sessions`: the live board in the TUI (a full-size overlay, so PgUp/PgDn reach it), the compact
// listing elsewhere (rpc: a notification; print and json: stderr, where Pi's notify does nothing).
// It takes no argument, joins nothing and prunes nothing; only the board's `w` and `x` act.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { describeBusError } from "../../domain/bus/bus-errors.js";
import type { BusEngine, InboxPreview, StatusView } from "../../domain/bus/engine/index.js";
import { inboxLimitMax } from "../../domain/bus/limits.js";
import { createBoard } from "./board/board.js";
import type { ActionOutcome, BoardActions, BoardSnapshot, InboxRow } from "./board/board-model.js";
import { formatListing } from "./board/listing.js";
import type { BusAccess } from "./session-tool.js";
import { listeningWords, releaseText } from "./texts.js";

function inboxRows(preview: InboxPreview | undefined): InboxRow[] {
  return (preview?.entries ?? []).map((entry) =>
    entry.kind === "message"
      ? {
          type: "message",
          id: entry.message.id,
          fromId: entry.message.from,
          fromLabel: entry.message.fromLabel,
          kind: entry.message.kind,
          text: entry.message.text,
          paths: entry.message.paths,
          sentAt: entry.message.sentAt,
          arrivalMs: entry.arrivedMs,
        }
      : { type: "unreadable", file: entry.name },
  );
}

/** The engine's read-only view as the board draws it. */
function boardSnapshot(view: StatusView, preview: InboxPreview | undefined, nowMs: number): BoardSnapshot {
  const listening = listeningWords(view.self.listening) as BoardSnapshot["self"]["listening"];
  return {
    self: {
      id: view.self.id ?? "",
      ...(view.self.label === undefined ? {} : { label: view.self.label }),
      joined: view.self.joined,
      listening,
    },
    sessions: view.sessions.map((s) => ({
      id: s.id,
      label: s.label,
      state: s.state,
      listening: listeningWords(s.listening) as BoardSnapshot["sessions"][number]["listening"],
      unread: s.unread ?? 0,
      claims: s.claims,
      cwd: s.cwd,
      heartbeatAgeMs: Math.max(0, nowMs - s.heartbeatMs),
      self: s.self,
    })),
    inbox: inboxRows(preview),
    inboxFiles: preview?.files,
    claims: view.sessions.flatMap((s) =>
      s.state === "active" ? s.claims.map((key) => ({ key, ownerId: s.id, ownerLabel: s.label, own: s.self })) : [],
    ),
  };
}

function readSnapshot(engine: BusEngine): BoardSnapshot {
  const view = engine.snapshot();
  if (view.isErr()) throw new Error(describeBusError(view.error));
  return boardSnapshot(view.value, engine.peek(inboxLimitMax).unwrapOr(undefined), Date.now());
}

function boardActions(access: BusAccess, engine: BusEngine): BoardActions {
  const outcome = (ok: boolean, message: string): ActionOutcome => ({ ok, message });
  return {
    snapshot: () => readSnapshot(engine),
    toggleListening() {
      const member = engine.membership();
      // `w` starts a plain watch (next turn) or stops it; wake is set with the tool.
      const joined = access.join({ listen: member === undefined ? true : !member.listening });
      access.changed();
      if (joined.isErr()) return outcome(false, describeBusError(joined.error));
      const now = joined.value.listening ? "listening: mail is reported at the next turn" : "not listening";
      return outcome(true, `${joined.value.label}: ${now}.`);
    },
    release(key) {
      const released = engine.releaseKeys([key]);
      access.changed();
      if (released.isErr()) return outcome(false, describeBusError(released.error));
      return outcome(released.value.released.includes(key), releaseText(released.value).text);
    },
  };
}

/** A line for the person: Pi's notify in tui and rpc; stderr in print and json, where notify does nothing. */
function tell(ctx: ExtensionCommandContext, text: string, level: "info" | "warning" | "error"): void {
  if (ctx.mode === "rpc" || ctx.mode === "tui") ctx.ui.notify(text, level);
  else process.stderr.write(`${text}\n`);
}

export function registerSessionsCommand(pi: ExtensionAPI, access: BusAccess): void {
  pi.registerCommand("sessions", {
    description: "The sessions on this repository's bus, this session's unread mail, and every claim",
    handler: async (args, ctx) => {
      if (args.trim() !== "") tell(ctx, "/sessions takes no arguments.", "warning");
      const engine = access.engine();
      if (engine === undefined) {
        tell(ctx, "The bus is not running in this session.", "error");
        return;
      }
      if (ctx.mode !== "tui") {
        let text: string;
        try {
          text = formatListing(readSnapshot(engine));
        } catch (error) {
          text = error instanceof Error ? error.message : String(error);
        }
        tell(ctx, text, "info");
        return;
      }
      const actions = boardActions(access, engine);
      await ctx.ui.custom<undefined>(
        (tui, theme, keybindings, done) => createBoard(tui, theme, keybindings, () => done(undefined), actions),
        { overlay: true, overlayOptions: { width: "100%", maxHeight: "100%", anchor: "center" } },
      );
    },
  });
}
