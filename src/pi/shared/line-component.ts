// A one-or-more-line TUI component without importing pi-tui at run time (loading it costs start-up
// time; the interface is three members). Every line is cut to the width it is given.

const ansi = /\x1b\[[0-9;]*m/g;

function cutToWidth(line: string, width: number): string {
  if (line.replace(ansi, "").length <= width) return line;
  let visible = 0;
  let out = "";
  for (let i = 0; i < line.length; ) {
    ansi.lastIndex = i;
    const sequence = ansi.exec(line);
    if (sequence !== null && sequence.index === i) {
      out += sequence[0];
      i += sequence[0].length;
      continue;
    }
    if (visible >= Math.max(0, width - 1)) break;
    out += line[i];
    visible++;
    i++;
  }
  return `${out}…\x1b[0m`;
}

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
