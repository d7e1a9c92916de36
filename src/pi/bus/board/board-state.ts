// The board's own state (tab, selections, open pane, question, status) and the few rules that move
// it. A selection is held by row key, with its index as the fallback when the row leaves.
import type { Tab } from "./board-rows.js";

interface ListPlace {
  key: string | undefined;
  index: number;
  /** First row drawn: the list window follows the selection. */
  top: number;
}

interface OpenPane {
  tab: Tab;
  key: string;
  /** First pane line drawn. */
  top: number;
}

export type Tone = "info" | "ok" | "error" | "ask";

export interface BoardState {
  tab: Tab;
  places: Record<Tab, ListPlace>;
  pane: OpenPane | undefined;
  /** The claim key an `x` asked about; the next key answers. */
  confirming: string | undefined;
  status: { text: string; tone: Tone } | undefined;
}

export function initialState(): BoardState {
  const place = (): ListPlace => ({ key: undefined, index: 0, top: 0 });
  return {
    tab: "sessions",
    places: { sessions: place(), inbox: place(), claims: place() },
    pane: undefined,
    confirming: undefined,
    status: undefined,
  };
}

function clamp(value: number, low: number, high: number): number {
  return Math.max(low, Math.min(high, value));
}

/** Keeps the selection on its row when the row is still listed, else on the row now at its index. */
export function followRows(place: ListPlace, keys: readonly string[]): void {
  const found = place.key === undefined ? -1 : keys.indexOf(place.key);
  place.index = found >= 0 ? found : clamp(place.index, 0, Math.max(0, keys.length - 1));
  place.key = keys[place.index];
}

export function moveSelection(place: ListPlace, keys: readonly string[], delta: number): void {
  place.index = clamp(place.index + delta, 0, Math.max(0, keys.length - 1));
  place.key = keys[place.index];
}

/** The list window's first row: unchanged while the selection shows, else just enough to show it. */
export function listTop(place: ListPlace, length: number, height: number): number {
  const rows = Math.max(1, height);
  let top = place.top;
  if (place.index < top) top = place.index;
  if (place.index >= top + rows) top = place.index - rows + 1;
  return clamp(top, 0, Math.max(0, length - rows));
}

/** A pane's first line after scrolling by `delta` (a huge delta is an end), kept inside the text. */
export function scrollPane(top: number, delta: number, length: number, height: number): number {
  return clamp(top + delta, 0, Math.max(0, length - Math.max(1, height)));
}
