// A one-or-more-line TUI component without importing pi-tui at run time (loading it costs start-up
// time; the interface is three members). Every line is cut to the terminal columns it is given:
// Pi stops drawing on a line wider than the screen.
import { cutToWidth } from "./display-width.js";

interface LineComponent {
  render(width: number): string[];
  invalidate(): void;
}

export function lineComponent(text: string): LineComponent {
  return {
    render: (width) => text.split("\n").map((line) => cutToWidth(line, width)),
    invalidate() {},
  };
}
