// What a person is told when this session leaves the bus holding claims (a quit, /new, /resume, a
// fork): the paths are free for any session now, and nothing else would say so.
import { shownPaths } from "../../domain/bus/inbox-read.js";

export function releasedText(keys: readonly string[]): string {
  const count = keys.length === 1 ? "1 claim" : `${keys.length} claims`;
  return `session-bus: this session left the bus and released ${count}: ${shownPaths([...keys].sort())}. Other sessions may claim them now.`;
}
