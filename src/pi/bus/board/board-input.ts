// What each key does to the board. The board changes only this session's own state: listening
// (w) and a claim it holds (x, released only after a yes); everything else moves the view.

import type { BoardKey } from "./board-keys.js";
import type { ActionOutcome, BoardActions, BoardSnapshot } from "./board-model.js";
import { paneOf } from "./board-panes.js";
import { oneLine, rowKeys, tabs } from "./board-rows.js";
import { type BoardState, moveSelection, scrollPane } from "./board-state.js";
import { bodyHeight, type Frame, paneHeight } from "./board-view.js";

export interface BoardContext {
  state: BoardState;
  actions: BoardActions;
  /** The last snapshot read. */
  snapshot(): BoardSnapshot;
  frame(): Frame;
  /** Reads a fresh snapshot and moves the selections onto it. */
  refresh(): void;
  close(): void;
}

// A move this long reaches either end of any list or pane (g, G).
const toEnd = Number.MAX_SAFE_INTEGER;

const moves: Partial<Record<BoardKey, (page: number) => number>> = {
  up: () => -1,
  down: () => 1,
  pageUp: (page) => -page,
  pageDown: (page) => page,
  top: () => -toEnd,
  bottom: () => toEnd,
};

export function failed(what: string, error: unknown): ActionOutcome {
  return { ok: false, message: `${what} failed: ${error instanceof Error ? error.message : String(error)}` };
}

function run(board: BoardContext, what: string, action: () => ActionOutcome): void {
  let outcome: ActionOutcome;
  try {
    outcome = action();
  } catch (error) {
    outcome = failed(what, error);
  }
  board.state.status = { text: outcome.message, tone: outcome.ok ? "ok" : "error" };
  board.refresh();
}

function answer(board: BoardContext, key: BoardKey | undefined, claimKey: string): void {
  board.state.confirming = undefined;
  if (key === "yes") run(board, `Releasing ${claimKey}`, () => board.actions.release(claimKey));
  else board.state.status = { text: `Kept ${claimKey}.`, tone: "info" };
}

// The screen refuses a peer's claim before asking anything; the store checks the owner again.
function askRelease(board: BoardContext): void {
  const state = board.state;
  if (state.tab !== "claims") {
    state.status = { text: "x releases a claim of yours: it works on the Claims tab.", tone: "info" };
    return;
  }
  const key = state.pane?.key ?? state.places.claims.key;
  const claim = board.snapshot().claims.find((row) => row.key === key);
  if (claim === undefined) return;
  if (claim.own) state.confirming = claim.key;
  else {
    const text = `${oneLine(claim.key)} is held by ${oneLine(claim.ownerLabel)}; only its owner releases it`;
    state.status = { text, tone: "error" };
  }
}

function switchTab(state: BoardState, step: number): void {
  const index = tabs.indexOf(state.tab);
  state.tab = tabs[(index + step + tabs.length) % tabs.length] ?? "sessions";
  state.pane = undefined;
}

function commonKey(board: BoardContext, key: BoardKey): void {
  if (key === "next") switchTab(board.state, 1);
  else if (key === "previous") switchTab(board.state, -1);
  else if (key === "listen") run(board, "Changing listening", () => board.actions.toggleListening());
  else if (key === "release") askRelease(board);
}

function paneKey(board: BoardContext, key: BoardKey): void {
  const pane = board.state.pane;
  const move = moves[key];
  if (pane === undefined) return;
  if (move !== undefined) {
    const height = paneHeight(board.frame());
    const length = paneOf(board.snapshot(), pane.tab, pane.key, board.frame().width)?.lines.length ?? 0;
    pane.top = scrollPane(pane.top, move(height), length, height);
  } else if (key === "cancel" || key === "quit") board.state.pane = undefined;
  else commonKey(board, key);
}

function listKey(board: BoardContext, key: BoardKey): void {
  const state = board.state;
  const place = state.places[state.tab];
  const move = moves[key];
  if (move !== undefined) moveSelection(place, rowKeys(board.snapshot(), state.tab), move(bodyHeight(board.frame())));
  else if (key === "open" && place.key !== undefined) state.pane = { tab: state.tab, key: place.key, top: 0 };
  else if (key === "cancel" || key === "quit") board.close();
  else commonKey(board, key);
}

/** Applies one key; false when the key meant nothing and the screen stays as it was. */
export function applyKey(board: BoardContext, key: BoardKey | undefined): boolean {
  const asked = board.state.confirming;
  if (asked !== undefined) {
    answer(board, key, asked);
    return true;
  }
  if (key === undefined) return false;
  board.state.status = undefined;
  if (board.state.pane === undefined) listKey(board, key);
  else paneKey(board, key);
  return true;
}
