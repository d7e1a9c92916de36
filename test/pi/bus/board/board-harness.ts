// Drives the board the way Pi does: raw key data as a terminal sends it (tmux, legacy encoding),
// keybindings mapped as Pi's defaults map them, a fake TUI of a fixed size and a theme that
// styles nothing, over a small world the board's actions change.
import type { Keybinding } from "@earendil-works/pi-tui";
import { vi } from "vitest";
import { type BoardComponent, createBoard } from "../../../../src/pi/bus/board/board.js";
import type {
  BoardActions,
  BoardSnapshot,
  ClaimRow,
  MessageRow,
  SessionRow,
} from "../../../../src/pi/bus/board/board-model.js";

export const keys = {
  up: "\x1b[A",
  down: "\x1b[B",
  pageUp: "\x1b[5~",
  pageDown: "\x1b[6~",
  tab: "\t",
  shiftTab: "\x1b[Z",
  enter: "\r",
  escape: "\x1b",
  ctrlC: "\x03",
} as const;

/** Pi's default bindings (docs/keybindings.md) for the ids the board asks about. */
export const defaultBindings: Partial<Record<Keybinding, readonly string[]>> = {
  "tui.select.up": [keys.up, "\x1bOA"],
  "tui.select.down": [keys.down, "\x1bOB"],
  "tui.select.pageUp": [keys.pageUp],
  "tui.select.pageDown": [keys.pageDown],
  "tui.select.confirm": [keys.enter],
  "tui.select.cancel": [keys.escape, keys.ctrlC],
  "tui.input.tab": [keys.tab],
};

export const keybindings = {
  matches: (data: string, id: Keybinding) => defaultBindings[id]?.includes(data) ?? false,
};

export const plainTheme = { fg: (_color: string, text: string) => text, bold: (text: string) => text };

export function session(label: string, fields: Partial<SessionRow> = {}): SessionRow {
  return {
    id: `id-${label}`,
    label,
    state: "active",
    listening: "next turn",
    unread: 0,
    claims: [],
    observed: [],
    cwd: `/repo/${label}`,
    heartbeatAgeMs: 4_000,
    self: false,
    ...fields,
  };
}

export function message(id: string, fields: Partial<MessageRow> = {}): MessageRow {
  return {
    type: "message",
    id,
    fromId: "id-integrator",
    fromLabel: "integrator",
    kind: "message",
    text: `text of ${id}`,
    paths: [],
    sentAt: "2025-01-02T03:04:05.000Z",
    arrivalMs: Date.UTC(2025, 0, 2, 3, 4, 6),
    ...fields,
  };
}

export function claim(key: string, ownerLabel: string, own: boolean, fields: Partial<ClaimRow> = {}): ClaimRow {
  return { key, ownerId: `id-${ownerLabel}`, ownerLabel, own, observed: false, ...fields };
}

/** This session joined as billing-core, one peer, no mail, no claims. */
export function joinedSnapshot(fields: Partial<BoardSnapshot> = {}): BoardSnapshot {
  return {
    self: { id: "id-billing-core", label: "billing-core", joined: true, listening: "next turn" },
    sessions: [session("billing-core", { self: true }), session("integrator")],
    inbox: [],
    claims: [],
    offers: [],
    ...fields,
  };
}

export interface Harness {
  board: BoardComponent;
  /** The world the next snapshot reads; tests replace it to play a peer. */
  world: { snapshot: BoardSnapshot };
  actions: { [K in keyof BoardActions]: ReturnType<typeof vi.fn<NonNullable<BoardActions[K]>>> };
  done: ReturnType<typeof vi.fn<() => void>>;
  tui: { terminal: { rows: number; columns: number }; requestRender: ReturnType<typeof vi.fn<() => void>> };
  press(...data: string[]): void;
  /** The rendered lines at the terminal's width (or `width`). */
  screen(width?: number): string[];
  text(width?: number): string;
}

export function openBoard(snapshot: BoardSnapshot, size = { rows: 30, columns: 100 }): Harness {
  const world = { snapshot };
  const actions = {
    snapshot: vi.fn<BoardActions["snapshot"]>(() => world.snapshot),
    toggleListening: vi.fn<BoardActions["toggleListening"]>(() => ({ ok: true, message: "toggled" })),
    release: vi.fn<BoardActions["release"]>((key) => {
      world.snapshot = { ...world.snapshot, claims: world.snapshot.claims.filter((row) => row.key !== key) };
      return { ok: true, message: `released ${key}` };
    }),
  };
  const done = vi.fn<() => void>();
  const tui = { terminal: { ...size }, requestRender: vi.fn<() => void>() };
  const board = createBoard(tui, plainTheme, keybindings, done, actions);
  const screen = (width = tui.terminal.columns) => board.render(width);
  return {
    board,
    world,
    actions,
    done,
    tui,
    press: (...data) => {
      for (const item of data) board.handleInput(item);
    },
    screen,
    text: (width) => screen(width).join("\n"),
  };
}

/** The line holding the selection marker, without it. */
export function selected(lines: readonly string[]): string | undefined {
  return lines.find((line) => line.startsWith("> "))?.slice(2);
}
