import type { ExtensionUIContext, Theme } from "@earendil-works/pi-coding-agent";
import { type TUI, visibleWidth } from "@earendil-works/pi-tui";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createBoard } from "../../../../src/pi/bus/board/board.js";
import type { BoardSnapshot } from "../../../../src/pi/bus/board/board-model.js";
import { displayWidth } from "../../../../src/pi/shared/display-width.js";
import { claim, joinedSnapshot, keybindings, keys, message, openBoard, plainTheme, session } from "./board-harness.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const hostile: BoardSnapshot = joinedSnapshot({
  sessions: [
    session("中文ラベル-ok", { cwd: "/repo/\x1b]8;;http://evil\x07link\x1b]8;;\x07/深い/ディレクトリ" }),
    session("e\u0301t\u0301e\u0301\u202eevil", { claims: ["src/\x1b[2Jwipe.ts"] }),
    session("🚀rocket🚀", { listening: "unknown" }),
  ],
  inbox: [
    message("m1", {
      fromLabel: "\x1b[31mred\x1b[0m\nforged line",
      text: "日本語のテキスト 🎉 with a \x1b[5mblink\x1b[0m and a\ttab\u200b and RTL \u2067x\u2069",
      paths: ["src/\u0000nul.ts"],
    }),
  ],
  claims: [claim("src/中文/\x1b[1mbold.ts", "中文ラベル-ok", false)],
});

const peerEscapes = [
  "\x1b[31m",
  "\x1b]8;",
  "\x1b[2J",
  "\x1b[5m",
  "\x1b[1m",
  "\u202e",
  "\u2067",
  "\u200b",
  "\u0000",
  "\t",
];

function everyScreen(snapshot: BoardSnapshot, columns: number): string[][] {
  const { press, screen } = openBoard(snapshot, { rows: 20, columns });
  const screens = [screen()];
  for (const step of [[keys.enter], [keys.escape, keys.tab], [keys.enter], [keys.escape, keys.tab], [keys.enter]]) {
    press(...step);
    screens.push(screen());
  }
  press(keys.escape, keys.tab, keys.down, keys.down, keys.enter);
  screens.push(screen());
  return screens;
}

describe("rendering", () => {
  it("draws exactly the terminal's rows less two, leaving Pi's footer visible", () => {
    for (const rows of [30, 12, 6]) {
      const { press, screen } = openBoard(joinedSnapshot({ inbox: [message("m1", { text: "x\n".repeat(80) })] }), {
        rows,
        columns: 80,
      });
      expect(screen()).toHaveLength(rows - 2);
      press(keys.tab, keys.enter);
      expect(screen()).toHaveLength(rows - 2);
    }
  });

  it("ends with the keys of the list, or of the pane when one is open", () => {
    const { press, screen } = openBoard(joinedSnapshot());
    expect(screen().at(-1)).toBe(
      "Tab/Shift+Tab switch · ↑↓ PgUp/PgDn move · Enter open · w stop listening · x release · Esc/q close",
    );
    press(keys.enter);
    expect(screen().at(-1)).toBe("↑↓ PgUp/PgDn scroll · g/G top/end · w stop listening · Esc back");
  });

  it("says what w does now: it stops wake and next-turn listening alike, and starts only a next-turn watch", () => {
    const line = (listening: "wake" | "next turn" | "not listening", joined = true) => {
      const self = { id: "id-billing-core", label: "billing-core", joined, listening };
      return openBoard(joinedSnapshot({ self })).screen().at(-1);
    };
    expect(line("wake")).toContain(" · w stop listening · ");
    expect(line("next turn")).toContain(" · w stop listening · ");
    expect(line("not listening")).toContain(" · w listen next turn · ");
    expect(line("not listening", false)).toContain(" · w listen next turn · ");
  });

  it.each([8, 13, 21, 34, 55, 100])(
    "cuts every line of every view to %i columns by display width, by its own measure and by Pi's",
    (columns) => {
      for (const lines of everyScreen(hostile, columns)) {
        for (const line of lines) {
          expect(displayWidth(line)).toBeLessThanOrEqual(columns);
          expect(visibleWidth(line)).toBeLessThanOrEqual(columns);
        }
      }
    },
  );

  it("strips every escape, control and bidi character a peer wrote, in lists and panes", () => {
    for (const lines of everyScreen(hostile, 100)) {
      for (const line of lines) {
        for (const bad of peerEscapes) expect(line).not.toContain(bad);
      }
    }
  });

  it("keeps a peer's newline from forging a line of its own", () => {
    const { press, screen } = openBoard(hostile);
    press(keys.tab);
    const row = screen().find((line) => line.startsWith("> "));
    expect(row).toBe("> red forged line  message  [1 path]  日本語のテキスト 🎉 with a blink and a tab and RTL x");
    press(keys.enter);
    expect(screen()).toContain("from       red forged line (id-integrator)");
    expect(screen().some((line) => line.startsWith("forged line"))).toBe(false);
  });

  it("counts wide characters as two columns and combining marks as none when aligning and cutting", () => {
    const { screen } = openBoard(hostile, { rows: 20, columns: 30 });
    const rows = screen().slice(2, 5);
    expect(rows[0]).toBe("> 中文ラベル-ok  active  next…");
    expect(rows[1]).toBe(`  e\u0301t\u0301e\u0301evil${" ".repeat(6)}  active  next…`);
    expect(rows[2]).toBe("  🚀rocket🚀     active  unkn…");
    expect(rows.map(displayWidth)).toEqual([30, 30, 30]);
  });
});

describe("the empty board", () => {
  const nobody: BoardSnapshot = {
    self: { id: "id-me", joined: false, listening: "not listening" },
    sessions: [],
    inbox: [],
    claims: [],
    offers: [],
  };

  it("says nobody has joined, that this session has not, and what each empty tab means", () => {
    const { press, screen } = openBoard(nobody);
    expect(screen()[0]).toBe("Session bus · this session has not joined · w joins it and listens");
    expect(screen()[2]).toBe("Nobody has joined the bus on this repository yet.");
    press(keys.tab);
    expect(screen()[2]).toBe("This session has not joined, so no mail reaches it.");
    press(keys.tab);
    expect(screen()[2]).toBe("No claims on this repository.");
  });

  it("hides this session's own row until it has joined, even when the snapshot carries it", () => {
    const { screen } = openBoard({ ...nobody, sessions: [session("me", { self: true })] });
    expect(screen()[1]).toBe("[Sessions (0)]  Inbox (0)   Claims (0) ");
    expect(screen()[2]).toBe("Nobody has joined the bus on this repository yet.");
  });

  it("opens no pane on an empty list", () => {
    const { press, screen } = openBoard(nobody);
    press(keys.enter);
    expect(screen().at(-1)).toContain("Esc/q close");
  });

  it("says there is no unread mail once joined", () => {
    const { press, screen } = openBoard(joinedSnapshot());
    press(keys.tab);
    expect(screen()[2]).toBe("No unread mail.");
  });
});

describe("as ctx.ui.custom's factory", () => {
  it("takes Pi's TUI, theme and keybindings, and resolves the overlay with nothing when closed", () => {
    const snapshot = joinedSnapshot();
    const actions = {
      snapshot: () => snapshot,
      toggleListening: () => ({ ok: true, message: "" }),
      release: () => ({ ok: true, message: "" }),
    };
    const factory: Parameters<ExtensionUIContext["custom"]>[0] = (tui, theme, bindings, done) =>
      createBoard(tui, theme, bindings, () => done(undefined), actions);
    const tui = { terminal: { rows: 10, columns: 40 }, requestRender: vi.fn() } as unknown as TUI;
    const done = vi.fn();
    const board = factory(
      tui,
      plainTheme as unknown as Theme,
      keybindings as unknown as Parameters<typeof factory>[2],
      done,
    );
    if (board instanceof Promise) throw new Error("the board is built synchronously");
    expect(board.render(40)).toHaveLength(8);
    board.handleInput?.(keys.escape);
    expect(done).toHaveBeenCalledWith(undefined);
  });
});
