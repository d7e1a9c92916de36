// The line of a text a one-line view shows: its first that says something (a script, a message or
// a command may open with a blank one), trimmed. Any line break counts (\n, \r\n, \r).

export function firstLine(text: string): string {
  return (text.split(/\r\n|\n|\r/).find((line) => line.trim() !== "") ?? "").trim();
}
