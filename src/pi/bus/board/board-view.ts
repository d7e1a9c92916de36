// Draws the board: a title naming this session, the tabs, the list or the open pane, a status line
// and the keys. Text is cut to the width first and styled after, so a cut never breaks a style.
import type { Theme } from "@earendil-works/pi-coding-agent";
import { cutToWidth } from "../../shared/display-width.js";
import type { BoardSnapshot } from "./board-model.js";
import { paneOf } from "./board-panes.js";
import { emptyText, listRows, oneLine, rowCount, type Tab, tabs } from "./board-rows.js";
import { type BoardState, listTop, scrollPane, type Tone } from "./board-state.js";

export type BoardTheme = Pick<Theme, "fg" | "bold">;

/** Lines around the body: title and tabs above, status and keys below. */
const chromeLines = 4;

const tabNames: Readonly<Record<Tab, string>> = { sessions: "Sessions", inbox: "Inbox", claims: "Claims" };

// What `w` does now: it stops any listening (wake too), and starts only a next-turn watch; wake is
// the session tool's to set.
function listenKey(snapshot: BoardSnapshot): string {
  return snapshot.self.joined && snapshot.self.listening !== "not listening"
    ? "w stop listening"
    : "w listen next turn";
}

const listKeys = (snapshot: BoardSnapshot) =>
  `Tab/Shift+Tab switch · ↑↓ PgUp/PgDn move · Enter open · ${listenKey(snapshot)} · x release · Esc/q close`;
const paneKeys = (snapshot: BoardSnapshot) => `↑↓ PgUp/PgDn scroll · g/G top/end · ${listenKey(snapshot)} · Esc back`;

export interface Frame {
  width: number;
  /** Lines the board fills: the terminal's rows less Pi's footer. */
  height: number;
}

export function bodyHeight(frame: Frame): number {
  return Math.max(1, frame.height - chromeLines);
}

/** Pane lines shown below its fixed title line. */
export function paneHeight(frame: Frame): number {
  return Math.max(1, bodyHeight(frame) - 1);
}

/** Brings the list window and an open pane's scroll inside what this frame can show. */
export function settleView(state: BoardState, snapshot: BoardSnapshot, frame: Frame): void {
  for (const tab of tabs) {
    const place = state.places[tab];
    place.top = listTop(place, rowCount(snapshot, tab), bodyHeight(frame));
  }
  const pane = state.pane;
  if (pane === undefined) return;
  const length = paneOf(snapshot, pane.tab, pane.key, frame.width)?.lines.length ?? 0;
  pane.top = scrollPane(pane.top, 0, length, paneHeight(frame));
}

function titleLine(snapshot: BoardSnapshot, theme: BoardTheme): string {
  const self = snapshot.self;
  const who = self.joined
    ? `this session: ${oneLine(self.label ?? self.id)} · listening: ${self.listening}`
    : "this session has not joined · w joins it and listens";
  const mail = snapshot.mailPending === undefined ? "" : ` · mail: ${snapshot.mailPending} pending`;
  return `${theme.bold("Session bus")} · ${who}${mail}`;
}

function tabsLine(snapshot: BoardSnapshot, active: Tab, theme: BoardTheme): string {
  return tabs
    .map((tab) => {
      const rows = rowCount(snapshot, tab);
      // The inbox rows preview the first 50: the tab counts every file, as the session's row does.
      const count = tab === "inbox" ? Math.max(rows, snapshot.inboxFiles ?? 0) : rows;
      const name = `${tabNames[tab]} (${count})`;
      return tab === active ? theme.fg("accent", `[${name}]`) : ` ${name} `;
    })
    .join(" ");
}

function listBody(state: BoardState, snapshot: BoardSnapshot, frame: Frame, theme: BoardTheme): string[] {
  if (rowCount(snapshot, state.tab) === 0) {
    return [theme.fg("dim", cutToWidth(emptyText(snapshot, state.tab), frame.width))];
  }
  const place = state.places[state.tab];
  return listRows(snapshot, state.tab, place.top, bodyHeight(frame)).map((row, offset) => {
    const selected = place.top + offset === place.index;
    const line = cutToWidth(`${selected ? "> " : "  "}${row.text}`, frame.width);
    return selected ? theme.fg("accent", line) : line;
  });
}

function paneBody(state: BoardState, snapshot: BoardSnapshot, frame: Frame, theme: BoardTheme): string[] {
  const open = state.pane;
  const pane = open === undefined ? undefined : paneOf(snapshot, open.tab, open.key, frame.width);
  if (open === undefined || pane === undefined) return [];
  const shown = pane.lines.slice(open.top, open.top + paneHeight(frame));
  const range =
    pane.lines.length > shown.length ? ` · ${open.top + 1}–${open.top + shown.length} of ${pane.lines.length}` : "";
  const title = theme.fg("accent", cutToWidth(`${pane.title}${range}`, frame.width));
  return [title, ...shown.map((line) => cutToWidth(line, frame.width))];
}

const toneColor = { info: "muted", ok: "success", error: "error", ask: "warning" } as const satisfies Record<
  Tone,
  Parameters<BoardTheme["fg"]>[0]
>;

function statusLine(state: BoardState, frame: Frame, theme: BoardTheme): string {
  if (state.confirming !== undefined) {
    return theme.fg(toneColor.ask, cutToWidth(`Release ${oneLine(state.confirming)}? (y/N)`, frame.width));
  }
  if (state.status === undefined) return "";
  return theme.fg(toneColor[state.status.tone], cutToWidth(oneLine(state.status.text), frame.width));
}

/** Exactly `frame.height` lines, none wider than `frame.width` columns. */
export function drawBoard(state: BoardState, snapshot: BoardSnapshot, frame: Frame, theme: BoardTheme): string[] {
  const body =
    state.pane === undefined ? listBody(state, snapshot, frame, theme) : paneBody(state, snapshot, frame, theme);
  const padded = [...body, ...Array<string>(Math.max(0, bodyHeight(frame) - body.length)).fill("")];
  const keys = theme.fg(
    "dim",
    cutToWidth(state.pane === undefined ? listKeys(snapshot) : paneKeys(snapshot), frame.width),
  );
  const lines = [
    cutToWidth(titleLine(snapshot, theme), frame.width),
    cutToWidth(tabsLine(snapshot, state.tab, theme), frame.width),
    ...padded,
    statusLine(state, frame, theme),
    keys,
  ];
  return lines.slice(0, Math.max(1, frame.height));
}
