// The /sessions board as a Pi component, for ctx.ui.custom(…, { overlay: true }) (only an overlay
// gets PgUp/PgDn in Pi's fullscreen mode). It reads a snapshot every second and after each action.
import { applyKey, type BoardContext, failed } from "./board-input.js";
import { type BoardKeybindings, readKey } from "./board-keys.js";
import type { BoardActions, BoardSnapshot } from "./board-model.js";
import { paneOf } from "./board-panes.js";
import { rowKeys, tabs } from "./board-rows.js";
import { followRows, initialState } from "./board-state.js";
import { type BoardTheme, drawBoard, type Frame, settleView } from "./board-view.js";

/** The part of Pi's TUI the board uses. */
interface BoardTui {
  terminal: { rows: number; columns: number };
  requestRender(): void;
}

export interface BoardComponent {
  render(width: number): string[];
  handleInput(data: string): void;
  invalidate(): void;
  dispose(): void;
}

const pollMs = 1000;

const noSnapshot: BoardSnapshot = {
  self: { id: "", joined: false, listening: "not listening" },
  sessions: [],
  inbox: [],
  claims: [],
};

/** Moves every selection onto `snapshot`, and leaves a pane whose row is gone. */
function follow(board: BoardContext, snapshot: BoardSnapshot): void {
  const state = board.state;
  for (const tab of tabs) followRows(state.places[tab], rowKeys(snapshot, tab));
  const pane = state.pane;
  if (pane !== undefined && paneOf(snapshot, pane.tab, pane.key, board.frame().width) === undefined) {
    state.pane = undefined;
    state.status = { text: "That row has left the board.", tone: "info" };
  }
}

export function createBoard(
  tui: BoardTui,
  theme: BoardTheme,
  keybindings: BoardKeybindings,
  done: () => void,
  actions: BoardActions,
): BoardComponent {
  let snapshot = noSnapshot;
  let width = tui.terminal.columns;
  let closed = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    closed = true;
    clearInterval(timer);
  };
  const board: BoardContext = {
    state: initialState(),
    actions,
    snapshot: () => snapshot,
    frame: (): Frame => ({ width, height: Math.max(1, tui.terminal.rows - 2) }),
    // A throw here would escape a timer and take Pi down: a failed read keeps the last snapshot.
    refresh() {
      try {
        snapshot = actions.snapshot();
      } catch (error) {
        board.state.status = { text: failed("Reading the bus", error).message, tone: "error" };
      }
      follow(board, snapshot);
    },
    close() {
      if (closed) return;
      stop();
      done();
    },
  };
  const component: BoardComponent = {
    render(renderWidth) {
      width = renderWidth;
      settleView(board.state, snapshot, board.frame());
      return drawBoard(board.state, snapshot, board.frame(), theme);
    },
    handleInput(data) {
      if (applyKey(board, readKey(data, keybindings))) repaint();
    },
    // Nothing is cached: every render draws from the current snapshot.
    invalidate() {},
    dispose: stop,
  };
  const repaint = () => {
    if (closed) return;
    component.invalidate();
    tui.requestRender();
  };
  board.refresh();
  timer = setInterval(() => {
    board.refresh();
    repaint();
  }, pollMs);
  return component;
}
