import { KeybindingsManager, TUI_KEYBINDINGS } from "@earendil-works/pi-tui";
import { describe, expect, it } from "vitest";
import { readKey } from "../../../../src/pi/bus/board/board-keys.js";
import { keybindings, keys } from "./board-harness.js";

// Pi's own manager over its default TUI bindings: what the board gets when a user changed nothing.
const pi = new KeybindingsManager(TUI_KEYBINDINGS);

const expected = [
  [keys.up, "up"],
  [keys.down, "down"],
  [keys.pageUp, "pageUp"],
  [keys.pageDown, "pageDown"],
  [keys.tab, "next"],
  [keys.shiftTab, "previous"],
  [keys.enter, "open"],
  [keys.escape, "cancel"],
  [keys.ctrlC, "cancel"],
  ["q", "quit"],
  ["g", "top"],
  ["G", "bottom"],
  ["w", "listen"],
  ["x", "release"],
  ["y", "yes"],
  ["Y", "yes"],
  ["n", undefined],
  ["N", undefined],
  ["\x1b[C", undefined],
] as const;

describe("readKey", () => {
  it.each(expected)("reads %j as %s with Pi's default keybindings", (data, key) => {
    expect(readKey(data, pi)).toBe(key);
  });

  it("reads every key the same with the tests' minimal keybindings as with Pi's", () => {
    for (const [data] of expected) expect(readKey(data, keybindings)).toBe(readKey(data, pi));
  });

  it("reads the Kitty keyboard protocol's encodings through Pi's keybindings", () => {
    expect(readKey("\x1b[1;1A", pi)).toBe("up");
    expect(readKey("\x1b[27u", pi)).toBe("cancel");
    expect(readKey("\x1b[99;5u", pi)).toBe("cancel");
    expect(readKey("\x1b[9;2u", pi)).toBe("previous");
  });

  it("follows a user's rebinding of a movement key", () => {
    const rebound = new KeybindingsManager(TUI_KEYBINDINGS, { "tui.select.down": "ctrl+n" });
    expect(readKey("\x0e", rebound)).toBe("down");
    expect(readKey(keys.down, rebound)).toBeUndefined();
  });
});
