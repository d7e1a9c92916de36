// What a person is told when this session leaves the bus holding claims (a quit, /new, /resume, a
// fork): the paths are free for any session now, and nothing else would say so.
import { shownPaths } from "../../domain/bus/inbox-read.js";
import { labelCharsMax } from "../../domain/bus/limits.js";
import { sanitizeField } from "../../domain/shared/text/sanitize.js";

/** What a leaving session left unread: how much, from whom, and which senders were told. */
export function leftUnreadText(left: { files: number; senders: readonly string[]; told: readonly string[] }): string {
  const count = left.files === 1 ? "1 unread message" : `${left.files} unread messages`;
  const from = left.senders.length > 0 ? ` from ${left.senders.map(labelOf).join(", ")}` : "";
  const told = left.told.length > 0 ? `; told ${left.told.map(labelOf).join(", ")}` : "";
  return `session-bus: this session left the bus with ${count}${from}${told}. They stay in its inbox until the message TTL.`;
}

const labelOf = (label: string) => sanitizeField(label, labelCharsMax);

export function releasedText(keys: readonly string[]): string {
  const count = keys.length === 1 ? "1 claim" : `${keys.length} claims`;
  return `session-bus: this session left the bus and released ${count}: ${shownPaths([...keys].sort())}. Other sessions may claim them now.`;
}
