// The board's keys: Pi's injected keybindings for the movement keys (they honour the user's
// keybindings.json and every terminal encoding), raw data for the letters.
import type { KeybindingsManager } from "@earendil-works/pi-tui";

export type BoardKeybindings = Pick<KeybindingsManager, "matches">;

export type BoardKey =
  | "up"
  | "down"
  | "pageUp"
  | "pageDown"
  | "next"
  | "previous"
  | "open"
  | "cancel"
  | "quit"
  | "top"
  | "bottom"
  | "listen"
  | "release"
  | "yes";

// Shift+Tab has no select id in Pi: its legacy and Kitty encodings, compared as data.
const shiftTab = new Set(["\x1b[Z", "\x1b[9;2u"]);

const letters: ReadonlyMap<string, BoardKey> = new Map([
  ["q", "quit"],
  ["g", "top"],
  ["G", "bottom"],
  ["w", "listen"],
  ["x", "release"],
  ["y", "yes"],
  ["Y", "yes"],
]);

/** The board key `data` stands for, if any. Letters first: a binding never shadows them. */
export function readKey(data: string, keybindings: BoardKeybindings): BoardKey | undefined {
  const letter = letters.get(data);
  if (letter !== undefined) return letter;
  if (shiftTab.has(data)) return "previous";
  if (keybindings.matches(data, "tui.select.up")) return "up";
  if (keybindings.matches(data, "tui.select.down")) return "down";
  if (keybindings.matches(data, "tui.select.pageUp")) return "pageUp";
  if (keybindings.matches(data, "tui.select.pageDown")) return "pageDown";
  if (keybindings.matches(data, "tui.input.tab")) return "next";
  if (keybindings.matches(data, "tui.select.confirm")) return "open";
  if (keybindings.matches(data, "tui.select.cancel")) return "cancel";
  return undefined;
}
