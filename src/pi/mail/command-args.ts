// What a person types after /mailbox: the parse of it, and the completion of its recipient. Pi's
// editor passes the whole argument text to getArgumentCompletions and replaces all of it with the
// chosen value, leaving the cursor after it: a value ends with a space, so the text typed next is
// not glued to the recipient.
import type { AutocompleteItem } from "@earendil-works/pi-tui";
import { hasUnsafeChars } from "../../domain/shared/text/sanitize.js";

type MailboxCommand =
  | { kind: "show" }
  | { kind: "prune" }
  | { kind: "sent" }
  | { kind: "cancel"; id: string }
  | { kind: "mode"; mode: "hold" | "accept" | "refuse" }
  | { kind: "send"; to: string; text: string }
  /** A recipient opened with a quote that never closes: `rest` is what follows the quote. */
  | { kind: "unterminated"; rest: string }
  /** A recipient alone, as typed (quotes kept): nothing to send. */
  | { kind: "no-text"; recipient: string }
  | { kind: "usage" };

const isQuote = (c: string | undefined): c is '"' | "'" => c === '"' || c === "'";

/** A mail id or its start, as `cancel` takes it: 8 or more id characters, one word. */
const cancelPattern = /^cancel\s+([0-9A-Za-z_-][0-9A-Za-z._-]{7,})$/;

/** `prune`, `sent`, `hold`, `accept` and `refuse` alone, and `cancel <id>`, are commands; followed by other text, each is a
 * request to a session of that name (quoted, it always is). A recipient with spaces goes in double
 * or single quotes (no escapes inside). */
export function parseMailboxCommand(args: string): MailboxCommand {
  const trimmed = args.trim();
  if (trimmed === "") return { kind: "show" };
  if (trimmed === "prune") return { kind: "prune" };
  if (trimmed === "sent") return { kind: "sent" };
  if (trimmed === "hold" || trimmed === "accept" || trimmed === "refuse") return { kind: "mode", mode: trimmed };
  const cancel = cancelPattern.exec(trimmed);
  if (cancel !== null) return { kind: "cancel", id: cancel[1]! };
  const quote = trimmed[0];
  if (isQuote(quote)) {
    const close = trimmed.indexOf(quote, 1);
    if (close === -1) return { kind: "unterminated", rest: trimmed.slice(1) };
    const after = trimmed.slice(close + 1);
    if (after === "" && close > 1) return { kind: "no-text", recipient: trimmed };
    if (!/^\s/.test(after) || after.trim() === "") return { kind: "usage" };
    return { kind: "send", to: trimmed.slice(1, close), text: after.trim() };
  }
  const match = /^(\S+)\s+([\s\S]+)$/.exec(trimmed);
  if (match === null) return { kind: "no-text", recipient: trimmed };
  return { kind: "send", to: match[1]!, text: match[2]!.trim() };
}

/** A running session as completion offers it. */
export interface RecipientChoice {
  /** Its name, or its unique prefix when it has none. */
  shown: string;
  /** The shortest prefix of its id that reaches it: offered when the name cannot be typed. */
  prefix: string;
  /** A name that does not reach it alone (another session has it too, or it reads as an id):
   * typing it finds this one, offered by its prefix. */
  sharedName?: string;
  description: string;
}

/** How a recipient is typed so that parseMailboxCommand reads it back whole, or undefined when it
 * cannot be (controls in it, or spaces along with both kinds of quote). */
function typedRecipient(name: string, quote?: '"' | "'"): string | undefined {
  if (name === "" || hasUnsafeChars(name)) return undefined;
  if (quote !== undefined) return name.includes(quote) ? undefined : `${quote}${name}${quote}`;
  if (!/\s/.test(name) && !isQuote(name[0])) return name;
  if (!name.includes('"')) return `"${name}"`;
  return name.includes("'") ? undefined : `'${name}'`;
}

const commandItems: AutocompleteItem[] = [
  { value: "prune", label: "prune", description: "remove closed sessions' mailbox folders" },
  { value: "sent", label: "sent", description: "the mail this session sent, and where each one stands" },
  { value: "cancel ", label: "cancel <id>", description: "withdraw a request or message still queued" },
  { value: "hold", label: "hold", description: "keep new mail queued, out of this session, until accept" },
  { value: "refuse", label: "refuse", description: "make sends to this session fail at once, until accept" },
  { value: "accept", label: "accept", description: "take mail again (what was held back comes now)" },
];

/** The completions for what is typed so far after /mailbox: only while the recipient is being typed. */
export function completeRecipient(typed: string, choices: readonly RecipientChoice[]): AutocompleteItem[] | null {
  const quote = typed[0];
  const opened = isQuote(quote) ? quote : undefined;
  // Past the recipient (a closed quote, or a space after a plain one), the text is free.
  if (opened !== undefined ? typed.indexOf(opened, 1) !== -1 : /\s/.test(typed)) return null;
  const partial = opened !== undefined ? typed.slice(1) : typed;
  const items = choices
    .filter((c) => c.shown.startsWith(partial) || (c.sharedName?.startsWith(partial) ?? false))
    .flatMap((c): AutocompleteItem[] => {
      const value = typedRecipient(c.shown, opened) ?? typedRecipient(c.prefix, opened);
      return value === undefined ? [] : [{ value: `${value} `, label: value, description: c.description }];
    })
    .sort((a, b) => (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
  if (opened === undefined) items.push(...commandItems.filter((item) => item.value.startsWith(partial)));
  return items.length > 0 ? items : null;
}
