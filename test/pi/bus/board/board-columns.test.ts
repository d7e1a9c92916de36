// The board's lists line up by display width, show what they draw and no more, and a message's
// pane never shows it arriving before it was sent.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BoardSnapshot, ClaimRow } from "../../../../src/pi/bus/board/board-model.js";
import { displayWidth } from "../../../../src/pi/shared/display-width.js";
import { claim, joinedSnapshot, keys, message, openBoard, selected, session } from "./board-harness.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

/** The display column where `cell` starts in `line`. */
function columnOf(line: string, cell: string): number {
  const at = line.indexOf(cell);
  if (at < 0) throw new Error(`${JSON.stringify(cell)} is not in ${JSON.stringify(line)}`);
  return displayWidth(line.slice(0, at));
}

/** The list rows on screen (below the title and the tabs), without the selection marker. */
const rowsOf = (lines: readonly string[], count: number) => lines.slice(2, 2 + count).map((line) => line.slice(2));

describe("columns", () => {
  it("lines up every column of the sessions, whatever each state, listening mode and count", () => {
    const snapshot = joinedSnapshot({
      sessions: [
        session("billing-core", { self: true, listening: "wake", unread: 12, claims: ["a", "b"] }),
        session("中文", { state: "gone", unread: 3 }),
        session("integrator", { listening: "not listening", claims: ["c"] }),
      ],
    });
    const rows = rowsOf(openBoard(snapshot).screen(), 3);
    for (const cell of [
      ["active", "gone", "active"],
      ["wake", "", "not listening"],
      ["12 unread", "3 unread", "0 unread"],
    ]) {
      const starts = rows.flatMap((row, index) => (cell[index] === "" ? [] : [columnOf(row, `  ${cell[index]}`) + 2]));
      expect(new Set(starts).size, `${cell.join(", ")} in\n${rows.join("\n")}`).toBe(1);
    }
    const claimStarts = rows.map((row) => columnOf(row, /\d+ claims?$/.exec(row)?.[0] ?? "no claim count"));
    expect(new Set(claimStarts).size).toBe(1);
  });

  it("lines up the sender, kind, paths and text of the inbox, wide characters counted as two columns", () => {
    const snapshot = joinedSnapshot({
      inbox: [
        message("m1", { fromLabel: "lead", kind: "handoff", paths: ["src/a.ts"], text: "take it" }),
        message("m2", { fromLabel: "中文ラベル", kind: "ask", text: "which one?" }),
        message("m3", { fromLabel: "integrator", kind: "event", paths: ["a", "b"], text: "merged" }),
      ],
    });
    const { press, screen } = openBoard(snapshot);
    press(keys.tab);
    const rows = rowsOf(screen(), 3);
    expect(new Set([columnOf(rows[0]!, "handoff"), columnOf(rows[1]!, "ask"), columnOf(rows[2]!, "event")]).size).toBe(
      1,
    );
    expect(columnOf(rows[0]!, "[1 path]")).toBe(columnOf(rows[2]!, "[2 paths]"));
    const texts = [columnOf(rows[0]!, "take it"), columnOf(rows[1]!, "which one?"), columnOf(rows[2]!, "merged")];
    expect(new Set(texts).size).toBe(1);
  });

  it("lines up the owners of the claims after paths of different widths", () => {
    const claims = [claim("src/api/", "billing-core", true), claim("src/中文/deep/file.ts", "integrator", false)];
    const { press, screen } = openBoard(joinedSnapshot({ claims }));
    press(keys.tab, keys.tab);
    const rows = rowsOf(screen(), 2);
    expect(columnOf(rows[0]!, "billing-core (you)")).toBe(columnOf(rows[1]!, "integrator"));
  });
});

describe("a message's times", () => {
  it("never shows a message arriving before it was sent (the file clock lags the sender's by milliseconds)", () => {
    const sentMs = Date.UTC(2025, 0, 2, 3, 4, 5, 120);
    const early = message("m1", { sentAt: new Date(sentMs).toISOString(), arrivalMs: sentMs - 5 });
    const { press, text } = openBoard(joinedSnapshot({ inbox: [early] }));
    press(keys.tab, keys.enter);
    expect(text()).toContain("sent       2025-01-02T03:04:05.120Z");
    expect(text()).toContain("arrived    2025-01-02T03:04:05.120Z");
  });

  it("shows a later arrival as it is", () => {
    const late = message("m1", { sentAt: "2025-01-02T03:04:05.000Z", arrivalMs: Date.UTC(2025, 0, 2, 3, 4, 6) });
    const { press, text } = openBoard(joinedSnapshot({ inbox: [late] }));
    press(keys.tab, keys.enter);
    expect(text()).toContain("arrived    2025-01-02T03:04:06.000Z");
  });
});

describe("20,000 claims", () => {
  /** Claims whose owner label counts its reads: only a row drawn reads it. */
  function countedClaims(count: number): { claims: ClaimRow[]; reads: () => number } {
    let reads = 0;
    const claims = Array.from({ length: count }, (_, index) => {
      const row = claim(`src/f${String(index).padStart(5, "0")}.ts`, "hog", false);
      return Object.defineProperty(row, "ownerLabel", {
        get: () => {
          reads++;
          return "hog";
        },
      });
    });
    return { claims, reads: () => reads };
  }

  it("draws only the rows on screen, polls included, and still counts, selects and ends on every claim", () => {
    const { claims, reads } = countedClaims(20_000);
    const snapshot: BoardSnapshot = joinedSnapshot({ claims });
    const { press, screen } = openBoard(snapshot, { rows: 30, columns: 100 });
    expect(screen()[1]).toContain("[Sessions (2)]");
    expect(screen()[1]).toContain("Claims (20000)");
    press(keys.tab, keys.tab, "G");
    expect(selected(screen())).toBe("src/f19999.ts  hog");
    vi.advanceTimersByTime(3_000);
    press(keys.pageUp);
    expect(selected(screen())).toBe("src/f19975.ts  hog");
    // Each render draws one screen (24 rows); five renders and three polls stay far below one pass.
    expect(reads()).toBeLessThan(500);
  });
});
