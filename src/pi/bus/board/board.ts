// The /sessions board as a Pi component, for piContext.ui.custom(…, { overlay: true }) (only an overlay
// gets PgUp/PgDn in Pi's fullscreen mode). It reads a snapshot every second and after each action,
// in steps when the actions read that way: one step per turn of Pi's loop, a snapshot drawn only
// once it is whole (until then the last whole one stays on screen).
import { applyKey, type BoardContext, failed } from "./board-input.js";
import { type BoardKeybindings, readKey } from "./board-keys.js";
import type { BoardActions, BoardSnapshot, SnapshotRead } from "./board-model.js";
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
  offers: [],
};

/** A read's end: a whole snapshot, or what it failed with. */
type ReadOutcome = { snapshot: BoardSnapshot } | { error: unknown };

function readWhole(actions: BoardActions): ReadOutcome {
  try {
    return { snapshot: actions.snapshot() };
  } catch (error) {
    return { error };
  }
}

/** Said until the first read is whole, when it takes more than one turn. */
const firstRead = { text: "Reading the bus…", tone: "info" } as const;

/** Reads in steps, one per turn of the loop (the first in the caller's turn), and hands on each
 * whole snapshot, or the failure; `later` says the caller's turn is over (the screen needs a repaint).
 * A refresh asked for during a read reads again after it: an action's effect is never missed. */
function stepwiseReader(readSteps: () => SnapshotRead, settled: (outcome: ReadOutcome, later: boolean) => void) {
  let read: SnapshotRead | undefined;
  let again = false;
  let next: ReturnType<typeof setImmediate> | undefined;
  let stopped = false;
  const step = (later: boolean): void => {
    next = undefined;
    if (stopped || read === undefined) return;
    let outcome: ReadOutcome;
    try {
      const whole = read.step();
      if (whole === undefined) {
        next = setImmediate(() => step(true));
        return;
      }
      outcome = { snapshot: whole };
    } catch (error) {
      // A read that failed is given up (its folder closed) whatever step it failed in.
      read.cancel();
      outcome = { error };
    }
    read = undefined;
    settled(outcome, later);
    if (again) {
      again = false;
      start(later);
    }
  };
  const start = (later: boolean): void => {
    try {
      read = readSteps();
    } catch (error) {
      settled({ error }, later);
      return;
    }
    step(later);
  };
  return {
    refresh() {
      if (stopped) return;
      if (read === undefined) start(false);
      else again = true;
    },
    reading: () => read !== undefined,
    stop() {
      stopped = true;
      if (next !== undefined) clearImmediate(next);
      read?.cancel();
      read = undefined;
    },
  };
}

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
    reader?.stop();
  };
  const take = (outcome: ReadOutcome, later: boolean) => {
    if ("snapshot" in outcome) snapshot = outcome.snapshot;
    else board.state.status = { text: failed("Reading the bus", outcome.error).message, tone: "error" };
    if (board.state.status === firstRead) board.state.status = undefined;
    follow(board, snapshot);
    if (later) repaint();
  };
  const readSteps = actions.readSteps?.bind(actions);
  const reader = readSteps === undefined ? undefined : stepwiseReader(readSteps, take);
  const board: BoardContext = {
    state: initialState(),
    actions,
    snapshot: () => snapshot,
    frame: (): Frame => ({ width, height: Math.max(1, tui.terminal.rows - 2) }),
    // A throw here would escape a timer and take Pi down: a failed read keeps the last snapshot.
    refresh() {
      if (reader !== undefined) reader.refresh();
      else take(readWhole(actions), false);
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
  if (reader?.reading()) board.state.status = firstRead;
  timer = setInterval(() => {
    board.refresh();
    repaint();
  }, pollMs);
  return component;
}
