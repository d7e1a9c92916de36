import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { joinedSnapshot, keys, message, openBoard, selected, session } from "./board-harness.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("the 1 s poll", () => {
  it("repaints a peer that joined without a key press", () => {
    const { screen, world, tui, text } = openBoard(joinedSnapshot());
    expect(text()).not.toContain("reviewer");
    world.snapshot = joinedSnapshot({ sessions: [...world.snapshot.sessions, session("reviewer")] });
    vi.advanceTimersByTime(999);
    expect(tui.requestRender).not.toHaveBeenCalled();
    expect(text()).not.toContain("reviewer");
    vi.advanceTimersByTime(1);
    expect(tui.requestRender).toHaveBeenCalledTimes(1);
    expect(screen()[1]).toContain("[Sessions (3)]");
    expect(text()).toContain("  reviewer  ");
  });

  it("reads one snapshot a second while open", () => {
    const { actions } = openBoard(joinedSnapshot());
    vi.advanceTimersByTime(3_000);
    expect(actions.snapshot).toHaveBeenCalledTimes(4);
  });

  it("stops polling and repainting once disposed", () => {
    const { board, actions, tui } = openBoard(joinedSnapshot());
    board.dispose();
    vi.advanceTimersByTime(5_000);
    expect(actions.snapshot).toHaveBeenCalledTimes(1);
    expect(tui.requestRender).not.toHaveBeenCalled();
    expect(vi.getTimerCount()).toBe(0);
  });

  it("keeps the selection on the same session when a row appears above it", () => {
    const peers = [session("b-peer"), session("c-peer")];
    const { press, screen, world } = openBoard(joinedSnapshot({ sessions: peers }));
    press(keys.down);
    expect(selected(screen())).toMatch(/^c-peer /);
    world.snapshot = joinedSnapshot({ sessions: [session("a-peer"), ...peers] });
    vi.advanceTimersByTime(1_000);
    expect(selected(screen())).toMatch(/^c-peer /);
  });

  it("moves the selection to the row now in its place when its own row leaves", () => {
    const peers = [session("a-peer"), session("b-peer"), session("c-peer")];
    const { press, screen, world } = openBoard(joinedSnapshot({ sessions: peers }));
    press(keys.down);
    world.snapshot = joinedSnapshot({ sessions: [peers[0]!, peers[2]!] });
    vi.advanceTimersByTime(1_000);
    expect(selected(screen())).toMatch(/^c-peer /);
    world.snapshot = joinedSnapshot({ sessions: [peers[0]!] });
    vi.advanceTimersByTime(1_000);
    expect(selected(screen())).toMatch(/^a-peer /);
  });

  it("keeps an open pane on its message while newer mail arrives, and leaves it when the message is consumed", () => {
    const { press, screen, world, text } = openBoard(joinedSnapshot({ inbox: [message("m1")] }));
    press(keys.tab, keys.enter);
    world.snapshot = joinedSnapshot({ inbox: [message("m0"), message("m1")] });
    vi.advanceTimersByTime(1_000);
    expect(text()).toContain("text of m1");
    expect(text()).not.toContain("text of m0");
    world.snapshot = joinedSnapshot({ inbox: [message("m0")] });
    vi.advanceTimersByTime(1_000);
    const lines = screen();
    expect(selected(lines)).toContain("text of m0");
    expect(lines[lines.length - 2]).toBe("That row has left the board.");
  });

  it("keeps the last snapshot and says so when a read throws, without throwing from the timer", () => {
    const { screen, actions, text } = openBoard(joinedSnapshot());
    actions.snapshot.mockImplementation(() => {
      throw new Error("EIO");
    });
    expect(() => vi.advanceTimersByTime(1_000)).not.toThrow();
    const lines = screen();
    expect(lines[lines.length - 2]).toBe("Reading the bus failed: EIO");
    expect(text()).toContain("integrator");
  });

  it("previews mail without consuming it: the board calls only snapshot while browsing", () => {
    const { press, actions } = openBoard(joinedSnapshot({ inbox: [message("m1"), message("m2")] }));
    press(keys.tab, keys.enter, keys.escape, keys.down, keys.enter, "G", "g", keys.escape);
    vi.advanceTimersByTime(2_000);
    expect(actions.toggleListening).not.toHaveBeenCalled();
    expect(actions.release).not.toHaveBeenCalled();
    expect(actions.snapshot).toHaveBeenCalledTimes(3);
  });
});
