import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { BoardSnapshot } from "../../../../src/pi/bus/board/board-model.js";
import { claim, joinedSnapshot, keys, openBoard, selected, session } from "./board-harness.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

const statusLine = (lines: readonly string[]) => lines[lines.length - 2];

describe("w: listening", () => {
  it("toggles listening, shows the action's message and repaints the title from a fresh snapshot", () => {
    const { press, screen, actions, world, tui } = openBoard(joinedSnapshot());
    actions.toggleListening.mockImplementation(() => {
      world.snapshot = { ...world.snapshot, self: { ...world.snapshot.self, listening: "not listening" } };
      return { ok: true, message: "Stopped listening for mail." };
    });
    const renders = tui.requestRender.mock.calls.length;
    press("w");
    const lines = screen();
    expect(actions.toggleListening).toHaveBeenCalledTimes(1);
    expect(statusLine(lines)).toBe("Stopped listening for mail.");
    expect(lines[0]).toBe("Session bus · this session: billing-core · listening: not listening");
    expect(tui.requestRender.mock.calls.length).toBe(renders + 1);
  });

  it("joins an unjoined session with w, and its own row appears only then", () => {
    const me = session("main", { self: true, id: "id-me", listening: "next turn" });
    const before: BoardSnapshot = {
      self: { id: "id-me", joined: false, listening: "not listening" },
      sessions: [me],
      inbox: [],
      claims: [],
      offers: [],
    };
    const { press, screen, actions, world } = openBoard(before);
    expect(screen()[0]).toBe("Session bus · this session has not joined · w joins it and listens");
    expect(screen()[2]).toBe("Nobody has joined the bus on this repository yet.");
    actions.toggleListening.mockImplementation(() => {
      world.snapshot = { ...before, self: { id: "id-me", label: "main", joined: true, listening: "next turn" } };
      return { ok: true, message: "Joined as main; listening for mail at the next turn." };
    });
    press("w");
    expect(screen()[0]).toBe("Session bus · this session: main · listening: next turn");
    expect(selected(screen())).toMatch(/^main \(you\) {2}active {2}next turn/);
    expect(statusLine(screen())).toBe("Joined as main; listening for mail at the next turn.");
  });

  it("shows a failed toggle as the action's message, and a thrown one without closing", () => {
    const { press, screen, actions, done } = openBoard(joinedSnapshot());
    actions.toggleListening.mockReturnValueOnce({ ok: false, message: "The bus folder is not writable." });
    press("w");
    expect(statusLine(screen())).toBe("The bus folder is not writable.");
    actions.toggleListening.mockImplementationOnce(() => {
      throw new Error("EACCES");
    });
    press("w");
    expect(statusLine(screen())).toBe("Changing listening failed: EACCES");
    expect(done).not.toHaveBeenCalled();
  });

  it("clears the status line on the next key", () => {
    const { press, screen } = openBoard(joinedSnapshot());
    press("w");
    expect(statusLine(screen())).toBe("toggled");
    press(keys.down);
    expect(statusLine(screen())).toBe("");
  });
});

describe("x: releasing a claim", () => {
  const claims = [claim("src/api/", "billing-core", true), claim("src/db/schema.ts", "integrator", false)];

  it("asks before releasing an own claim and releases it on y", () => {
    const { press, screen, actions } = openBoard(joinedSnapshot({ claims }));
    press(keys.tab, keys.tab, "x");
    expect(statusLine(screen())).toBe("Release src/api/? (y/N)");
    expect(actions.release).not.toHaveBeenCalled();
    press("y");
    expect(actions.release).toHaveBeenCalledWith("src/api/");
    const lines = screen();
    expect(statusLine(lines)).toBe("released src/api/");
    expect(lines[1]).toContain("[Claims (1)]");
    expect(selected(lines)).toBe("src/db/schema.ts  integrator");
  });

  it.each([
    ["N", "N"],
    ["n", "n"],
    ["Esc", keys.escape],
    ["Enter", keys.enter],
  ])("keeps the claim when the answer is %s, and the board stays open", (_name, answer) => {
    const { press, screen, actions, done } = openBoard(joinedSnapshot({ claims }));
    press(keys.tab, keys.tab, "x", answer);
    expect(actions.release).not.toHaveBeenCalled();
    expect(statusLine(screen())).toBe("Kept src/api/.");
    expect(selected(screen())).toBe("src/api/          billing-core (you)");
    expect(done).not.toHaveBeenCalled();
  });

  it("refuses a peer's claim without asking", () => {
    const { press, screen, actions } = openBoard(joinedSnapshot({ claims }));
    press(keys.tab, keys.tab, keys.down, "x");
    expect(statusLine(screen())).toBe("src/db/schema.ts is held by integrator; only its owner releases it");
    press("y");
    expect(actions.release).not.toHaveBeenCalled();
  });

  it("releases from an own claim's pane too", () => {
    const { press, screen, actions } = openBoard(joinedSnapshot({ claims }));
    press(keys.tab, keys.tab, keys.enter);
    expect(screen()[2]).toBe("Claim src/api/");
    press("x", "y");
    expect(actions.release).toHaveBeenCalledWith("src/api/");
    expect(selected(screen())).toBe("src/db/schema.ts  integrator");
  });

  it("releases nothing from the Sessions or Inbox tab", () => {
    const { press, screen, actions } = openBoard(joinedSnapshot({ claims }));
    press("x", "y");
    expect(statusLine(screen())).toBe("");
    press(keys.tab, "x");
    expect(statusLine(screen())).toBe("x releases a claim of yours: it works on the Claims tab.");
    expect(actions.release).not.toHaveBeenCalled();
  });

  it("shows a refused release as the store's message", () => {
    const { press, screen, actions } = openBoard(joinedSnapshot({ claims }));
    actions.release.mockReturnValueOnce({ ok: false, message: "src/api/ is not claimed" });
    press(keys.tab, keys.tab, "x", "y");
    expect(statusLine(screen())).toBe("src/api/ is not claimed");
  });
});
