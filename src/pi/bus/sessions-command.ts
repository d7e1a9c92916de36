// `/sessions`: the live board in the TUI (a full-size overlay, so PgUp/PgDn reach it), the compact
// listing elsewhere (rpc: a notification; print and json: stderr, where Pi's notify does nothing).
// It takes no argument, joins nothing and prunes nothing; only the board's `w` and `x` act.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { describeBusError } from "../../domain/bus/bus-errors.js";
import type { BusEngine } from "../../domain/bus/engine/index.js";
import { createBoard } from "./board/board.js";
import type { ActionOutcome, BoardActions } from "./board/board-model.js";
import { readBoardSnapshot, readBoardSnapshotSteps } from "./board/board-read.js";
import { formatListing } from "./board/listing.js";
import { sessionsCommand } from "./registrations.js";
import { mailFacts } from "./roster.js";
import type { BusAccess } from "./session-tool.js";
import { releaseText } from "./texts.js";

function boardActions(pi: ExtensionAPI, access: BusAccess, engine: BusEngine): BoardActions {
  const outcome = (ok: boolean, message: string): ActionOutcome => ({ ok, message });
  // The mailbox's side of every session: asked at each read, as the board repaints every second.
  const mail = () => mailFacts(pi);
  return {
    snapshot: () => readBoardSnapshot(engine, mail),
    readSteps: () => readBoardSnapshotSteps(engine, mail),
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
function tell(piContext: ExtensionCommandContext, text: string, level: "info" | "warning" | "error"): void {
  if (piContext.mode === "rpc" || piContext.mode === "tui") piContext.ui.notify(text, level);
  else process.stderr.write(`${text}\n`);
}

export function registerSessionsCommand(pi: ExtensionAPI, access: BusAccess): void {
  pi.registerCommand(sessionsCommand.name, {
    description: sessionsCommand.description,
    handler: async (args, piContext) => {
      if (args.trim() !== "") tell(piContext, "/sessions takes no arguments.", "warning");
      const engine = access.engine();
      if (engine === undefined) {
        tell(piContext, "The bus is not running in this session.", "error");
        return;
      }
      if (piContext.mode !== "tui") {
        let text: string;
        try {
          text = formatListing(readBoardSnapshot(engine, () => mailFacts(pi)));
        } catch (error) {
          text = error instanceof Error ? error.message : String(error);
        }
        tell(piContext, text, "info");
        return;
      }
      const actions = boardActions(pi, access, engine);
      await piContext.ui.custom<undefined>(
        (tui, theme, keybindings, done) => createBoard(tui, theme, keybindings, () => done(undefined), actions),
        { overlay: true, overlayOptions: { width: "100%", maxHeight: "100%", anchor: "center" } },
      );
    },
  });
}
