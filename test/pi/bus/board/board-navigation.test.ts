import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { claim, joinedSnapshot, keys, message, openBoard, selected, session } from "./board-harness.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const manyPeers = Array.from({ length: 40 }, (_, i) => session(`peer-${String(i + 1).padStart(2, "0")}`));

describe("tabs", () => {
  const snapshot = joinedSnapshot({ inbox: [message("m1")], claims: [claim("src/api/", "integrator", false)] });

  it("opens on Sessions, with every tab's count on the tab line", () => {
    const { screen } = openBoard(snapshot);
    expect(screen()[1]).toBe("[Sessions (2)]  Inbox (1)   Claims (1) ");
  });

  it("cycles Sessions, Inbox, Claims and back to Sessions with Tab", () => {
    const { press, screen } = openBoard(snapshot);
    press(keys.tab);
    expect(screen()[1]).toContain("[Inbox (1)]");
    expect(selected(screen())).toContain("text of m1");
    press(keys.tab);
    expect(screen()[1]).toContain("[Claims (1)]");
    expect(selected(screen())).toBe("src/api/  integrator");
    press(keys.tab);
    expect(screen()[1]).toContain("[Sessions (2)]");
  });

  it("goes back one tab with Shift+Tab, from Sessions to Claims", () => {
    const { press, screen } = openBoard(snapshot);
    press(keys.shiftTab);
    expect(screen()[1]).toContain("[Claims (1)]");
    press(keys.shiftTab);
    expect(screen()[1]).toContain("[Inbox (1)]");
  });

  it("keeps each tab's selection while another tab is shown", () => {
    const { press, screen } = openBoard(joinedSnapshot({ sessions: manyPeers }));
    press(keys.down, keys.down, keys.tab, keys.shiftTab);
    expect(selected(screen())).toMatch(/^peer-03 /);
  });
});

describe("moving the selection", () => {
  it("moves down and up one row with the arrows and stops at either end", () => {
    const { press, screen } = openBoard(joinedSnapshot({ sessions: manyPeers.slice(0, 3) }));
    expect(selected(screen())).toMatch(/^peer-01 /);
    press(keys.down, keys.down, keys.down, keys.down);
    expect(selected(screen())).toMatch(/^peer-03 /);
    press(keys.up);
    expect(selected(screen())).toMatch(/^peer-02 /);
    press(keys.up, keys.up, keys.up);
    expect(selected(screen())).toMatch(/^peer-01 /);
  });

  it("moves a page (the terminal's rows less six) with PgDn and PgUp, and the list follows the selection", () => {
    const { press, screen } = openBoard(joinedSnapshot({ sessions: manyPeers }));
    press(keys.down, keys.down, keys.pageDown);
    const lines = screen();
    expect(selected(lines)).toMatch(/^peer-27 /);
    expect(lines.filter((line) => /^[> ] peer-/.test(line))).toHaveLength(24);
    press(keys.pageUp);
    expect(selected(screen())).toMatch(/^peer-03 /);
    press(keys.pageDown, keys.pageDown);
    expect(selected(screen())).toMatch(/^peer-40 /);
  });
});

describe("panes", () => {
  it("opens the focused session's pane with all of its fields, and Esc returns to the same row", () => {
    const peer = session("integrator", { claims: ["src/api/", "docs/"], unread: 3, heartbeatAgeMs: 75_000 });
    const { press, screen, text } = openBoard(joinedSnapshot({ sessions: [session("reviewer"), peer] }));
    press(keys.down, keys.enter);
    expect(screen()[2]).toBe("Session integrator");
    for (const field of [
      "label      integrator",
      "id         id-integrator",
      "state      active",
      "listening  next turn",
      "unread     3",
      "heartbeat  1m ago",
      "cwd        /repo/integrator",
      "claims     src/api/",
      "           docs/",
    ]) {
      expect(screen()).toContain(field);
    }
    expect(text()).toContain("Esc back");
    press(keys.escape);
    expect(selected(screen())).toMatch(/^integrator /);
  });

  it("opens a message as prose from the top, wrapped to the width, after its fields", () => {
    const prose = "one two three four five six seven eight nine ten eleven twelve";
    const mail = message("m1", { kind: "handoff", text: `${prose}\nsecond line`, paths: ["src/a.ts", "src/b.ts"] });
    const { press, screen } = openBoard(joinedSnapshot({ inbox: [mail] }), { rows: 30, columns: 24 });
    press(keys.tab, keys.enter);
    const lines = screen();
    expect(lines[2]).toBe("handoff from integrator");
    expect(lines.slice(3, 5)).toEqual(["from: integrator", "(id-integrator)"]);
    expect(lines).toContain("kind: handoff");
    expect(lines).toContain("paths: src/a.ts");
    expect(lines).toContain("paths: src/b.ts");
    const start = lines.indexOf("one two three four five");
    expect(lines.slice(start, start + 4)).toEqual([
      "one two three four five",
      "six seven eight nine ten",
      "eleven twelve",
      "second line",
    ]);
  });

  it("names an unreadable file in its pane and says it stays on disk", () => {
    const { press, text } = openBoard(joinedSnapshot({ inbox: [{ type: "unreadable", file: "0001-x.json" }] }));
    press(keys.tab);
    expect(text()).toContain("> unreadable file  0001-x.json");
    press(keys.enter);
    expect(text()).toContain("file       0001-x.json");
    expect(text()).toContain("left on disk");
  });

  it("scrolls a pane a line with the arrows, a page with PgUp/PgDn, and to its ends with g and G", () => {
    const text = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join("\n");
    const { press, screen } = openBoard(joinedSnapshot({ inbox: [message("long", { text })] }));
    const first = () => screen()[3];
    press(keys.tab, keys.enter);
    expect(first()).toBe("from       integrator (id-integrator)");
    expect(screen()[2]).toBe("message from integrator · 1–23 of 66");
    press(keys.down, keys.down);
    expect(first()).toBe("sent       2025-01-02T03:04:05.000Z");
    press(keys.up);
    expect(first()).toBe("kind       message");
    press(keys.pageDown);
    expect(first()).toBe("line 19");
    press("G");
    expect(first()).toBe("line 38");
    expect(screen()[25]).toBe("line 60");
    press(keys.down);
    expect(first()).toBe("line 38");
    press(keys.pageUp);
    expect(first()).toBe("line 15");
    press("g");
    expect(first()).toBe("from       integrator (id-integrator)");
    press(keys.up);
    expect(first()).toBe("from       integrator (id-integrator)");
  });
});

describe("closing", () => {
  it.each([
    ["Esc", keys.escape],
    ["q", "q"],
    ["Ctrl+C", keys.ctrlC],
  ])("closes the board from a list with %s", (_name, key) => {
    const { press, done, actions } = openBoard(joinedSnapshot());
    press(key);
    expect(done).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(5_000);
    expect(actions.snapshot).toHaveBeenCalledTimes(1);
  });

  it("goes back from a pane with Esc, q or Ctrl+C instead of closing", () => {
    const { press, done, screen } = openBoard(joinedSnapshot());
    for (const key of [keys.escape, "q", keys.ctrlC]) {
      press(keys.enter);
      expect(screen()[2]).toBe("Session billing-core (you)");
      press(key);
      expect(selected(screen())).toMatch(/^billing-core \(you\)/);
    }
    expect(done).not.toHaveBeenCalled();
  });

  it("ignores keys it has no use for", () => {
    const { press, done, screen } = openBoard(joinedSnapshot());
    const before = screen();
    press("z", "\x1b[C", "\x1b[D");
    expect(screen()).toEqual(before);
    expect(done).not.toHaveBeenCalled();
  });
});
