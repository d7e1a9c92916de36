// The board reading in steps (what /sessions gives it): one step per turn of the loop, the last whole
// snapshot on screen until the next is whole, a refresh asked during a read read after it, a read
// given up when the board closes, and a failed step kept from the timer.
import { describe, expect, it, vi } from "vitest";
import { createBoard } from "../../../../src/pi/bus/board/board.js";
import type { BoardActions, BoardSnapshot, SnapshotRead } from "../../../../src/pi/bus/board/board-model.js";
import { joinedSnapshot, keybindings, plainTheme, session } from "./board-harness.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A world whose reads take `steps` steps each, each read seeing the world as it was at its start. */
function steppedBoard(first: BoardSnapshot, steps: number) {
  const world = { snapshot: first, steps, failAt: undefined as number | undefined };
  const reads = { started: 0, cancelled: 0, steps: 0 };
  const readSteps = (): SnapshotRead => {
    reads.started++;
    const seen = world.snapshot;
    let left = world.steps;
    return {
      step() {
        reads.steps++;
        if (world.failAt === reads.steps) throw new Error("EIO");
        return --left > 0 ? undefined : seen;
      },
      cancel: () => void reads.cancelled++,
    };
  };
  const actions: BoardActions = {
    snapshot: () => {
      throw new Error("a board that reads in steps never reads whole");
    },
    readSteps,
    toggleListening: () => ({ ok: true, message: "toggled" }),
    release: () => ({ ok: true, message: "released" }),
  };
  const tui = { terminal: { rows: 30, columns: 100 }, requestRender: vi.fn<() => void>() };
  const board = createBoard(tui, plainTheme, keybindings, vi.fn(), actions);
  const text = () => board.render(100).join("\n");
  return { world, reads, tui, board, text };
}

const withPeer = (label: string) => joinedSnapshot({ sessions: [...joinedSnapshot().sessions, session(label)] });

describe("the board reading in steps", () => {
  it("reads a one-step world at once, as a whole read does", () => {
    const { text, reads, board } = steppedBoard(withPeer("reviewer"), 1);
    expect(text()).toContain("reviewer");
    expect(text()).not.toContain("Reading the bus");
    expect(reads).toEqual({ started: 1, cancelled: 0, steps: 1 });
    board.dispose();
  });

  it("says it is reading until its first read is whole, one step a turn", async () => {
    const { text, reads, board, tui } = steppedBoard(withPeer("reviewer"), 3);
    expect(text()).toContain("Reading the bus…");
    expect(text()).not.toContain("reviewer");
    await nextTurn();
    expect(reads.steps).toBe(2);
    expect(text()).not.toContain("reviewer");
    await nextTurn();
    expect(reads.steps).toBe(3);
    expect(text()).toContain("reviewer");
    expect(text()).not.toContain("Reading the bus");
    expect(tui.requestRender).toHaveBeenCalledTimes(1);
    board.dispose();
  });

  it("keeps the last whole snapshot on screen while the next is read, and reads again for a refresh asked meanwhile", async () => {
    const { world, text, reads, board } = steppedBoard(withPeer("reviewer"), 1);
    world.snapshot = withPeer("tester");
    world.steps = 3;
    board.handleInput("w");
    expect(text()).toContain("reviewer");
    world.snapshot = withPeer("auditor");
    board.handleInput("w");
    expect(reads.started).toBe(2);
    await nextTurn();
    expect(text()).toContain("reviewer");
    await nextTurn();
    // The read started before the second refresh is whole: drawn, and a new read started.
    expect(text()).toContain("tester");
    expect(reads.started).toBe(3);
    await nextTurn();
    await nextTurn();
    expect(text()).toContain("auditor");
    expect(text()).not.toContain("tester");
    board.dispose();
  });

  it("gives up a read under way when it closes, and steps no more", async () => {
    const { world, reads, board } = steppedBoard(joinedSnapshot(), 1);
    world.steps = 5;
    board.handleInput("w");
    board.dispose();
    const stepped = reads.steps;
    await nextTurn();
    await nextTurn();
    expect(reads.steps).toBe(stepped);
    expect(reads.cancelled).toBe(1);
  });

  it("keeps the last snapshot and says so when a later step fails, without throwing from the loop", async () => {
    const { world, reads, text, board } = steppedBoard(withPeer("reviewer"), 1);
    world.snapshot = withPeer("tester");
    world.steps = 3;
    world.failAt = reads.steps + 2;
    board.handleInput("w");
    await nextTurn();
    await nextTurn();
    expect(text()).toContain("Reading the bus failed: EIO");
    expect(text()).toContain("reviewer");
    expect(text()).not.toContain("tester");
    board.dispose();
  });
});
