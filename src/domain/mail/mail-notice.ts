// Everything the mailbox engine tells the person, as values, and the one renderer that turns each
// into words. Every field a peer or the file system could have shaped is sanitized here, and the
// whole notice is cut to noticeCharsMax: no notice reaches a host raw.
import type { NoticeLevel } from "../../ports/mail/agent-host.js";
import type { StoreError } from "../../ports/shared/store-error.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import { type Address, shortId } from "./address.js";
import type { DecodeError } from "./envelope.js";
import { labelFieldCharsMax, noticeCharsMax } from "./limits.js";
import { describePruned } from "./prune-rules.js";
import { describeHeld, type OwedMail } from "./settle-rules.js";
import { describeStoreError } from "./store-errors.js";

export type MailNotice =
  // Opening and holding the mailbox.
  | { kind: "mailbox-off"; error: StoreError; retryMs: number }
  | { kind: "mailbox-on" }
  | { kind: "mailbox-stopped"; error: StoreError }
  | { kind: "folder-open"; path: string }
  | { kind: "config"; problem: string }
  | { kind: "guest"; holderPid: number | undefined }
  | { kind: "owner-unclaimed"; error: StoreError }
  | { kind: "owner-now" }
  | { kind: "record-unwritten"; error: StoreError }
  | { kind: "ledger-unwritten"; error: StoreError }
  // Claiming and reading mail.
  | { kind: "inbox-unreadable"; error: StoreError }
  | { kind: "hidden"; name: string }
  | { kind: "hidden-more"; count: number; namedMax: number }
  | { kind: "journal-unwritten"; error: StoreError }
  | { kind: "journal-unreadable"; error: StoreError }
  | { kind: "journal-damaged"; damage: string }
  | { kind: "claim-failed"; name: string; error: StoreError }
  | { kind: "read-failed"; path: string; error: StoreError }
  | { kind: "set-aside"; path: string; reason: string }
  | { kind: "invalid-envelope"; path: string; error: DecodeError }
  | { kind: "misaddressed"; path: string; to: string }
  | { kind: "listener-failed"; message: string }
  | { kind: "inject-failed"; mailId: string; message: string }
  // Writing mail and answers.
  | { kind: "sent-copy-failed"; error: StoreError }
  | { kind: "answer-unwritten"; to: Address; error: StoreError }
  | { kind: "answer-written"; to: Address }
  | { kind: "answers-given-up"; to: Address; owedMax: number }
  | { kind: "held"; held: readonly OwedMail[]; names: ReadonlyMap<Address, string> }
  | { kind: "pruned"; count: number };

const field = (value: string) => sanitizeField(value, labelFieldCharsMax);
const stored = describeStoreError;

type Kind = MailNotice["kind"];
/** One entry per kind: the compiler refuses a notice without words (the table is the exhaustive switch). */
type WordTable = { [K in Kind]: (notice: Extract<MailNotice, { kind: K }>) => string };

const wordsOf: WordTable = {
  "mailbox-off": (n) =>
    `The mailbox is off for this session: ${stored(n.error)}. It tries again every ${n.retryMs / 1000} s.`,
  "mailbox-on": () => "The mailbox is on again for this session.",
  "mailbox-stopped": (n) => `The mailbox stopped for this session: ${stored(n.error)}`,
  "folder-open": (n) => `This session's mailbox folder is open to other users. Run: chmod 700 ${field(n.path)}`,
  config: (n) => n.problem,
  guest: (n) => guestWords(n.holderPid),
  "owner-unclaimed": (n) =>
    `Could not take this session's mailbox for this process: ${stored(n.error)}. It only sends until it can; trying again at each poll.`,
  "owner-now": () => "This process now holds this session's mailbox: mail to it is read here.",
  "record-unwritten": (n) => `Could not write this session's running record: ${stored(n.error)}`,
  "ledger-unwritten": (n) =>
    `Could not write this session's ask ledger: ${stored(n.error)}. Asks it read may not be answerable after a restart.`,
  "inbox-unreadable": (n) => `Could not read this session's inbox: ${stored(n.error)}`,
  hidden: (n) =>
    n.name.startsWith(".")
      ? `Ignoring the dot-file ${field(n.name)} in this session's inbox: it is never read as mail.`
      : `Ignoring ${field(n.name)} in this session's inbox: its name is not valid UTF-8, so it is never read as mail.`,
  "hidden-more": (n) =>
    `Ignoring ${n.count} more entries in this session's inbox that are never read as mail (dot-files, or names that are not valid UTF-8); only the first ${n.namedMax} are named.`,
  "journal-unwritten": (n) => `Could not write this session's claim journal: ${stored(n.error)}`,
  "journal-unreadable": (n) =>
    `Could not read this session's claim journal: ${stored(n.error)}. No mail is claimed until it can be read; retrying at each poll.`,
  "journal-damaged": (n) =>
    `This session's claim journal could not be read (${field(n.damage)}): mail claimed just before a crash may not be shown again. It is replaced at the next claim.`,
  "claim-failed": (n) => `Could not claim ${field(n.name)}: ${stored(n.error)}`,
  "read-failed": (n) =>
    `Could not read ${field(n.path)} (${stored(n.error)}); it stays claimed and is read again at the next poll.`,
  "set-aside": (n) => `Set aside ${field(n.path)} (${field(n.reason)}): it is not read as mail.`,
  "invalid-envelope": (n) =>
    `Set aside ${field(n.path)}: it is not a valid envelope (${n.error.kind === "not-json" ? "not JSON" : n.error.kind}); it stays in cur/.`,
  misaddressed: (n) => `Set aside ${field(n.path)}: it is addressed to ${field(n.to)}, not to this session.`,
  "listener-failed": (n) => `A message:inbound listener failed: ${field(n.message)}`,
  "inject-failed": (n) => `Could not show mail ${field(n.mailId)}: ${field(n.message)}`,
  "sent-copy-failed": (n) => `Could not keep a copy in sent/: ${stored(n.error)}`,
  "answer-unwritten": (n) =>
    `Could not write the answer to ${n.to} (${stored(n.error)}); it is kept and tried again at each poll.`,
  "answer-written": (n) => `The answer to ${n.to} that could not be written before is written now.`,
  "answers-given-up": (n) =>
    `${n.owedMax} answers could not be written and wait to be tried again; the answer to ${n.to} is given up.`,
  held: (n) => describeHeld(n.held, (from) => n.names.get(from) ?? shortId(from)),
  pruned: (n) => describePruned(n.count),
};

function guestWords(holderPid: number | undefined): string {
  const who = holderPid === undefined ? "another process" : `another process (pid ${holderPid})`;
  return `This session's mailbox is held by ${who}: the same session is open twice (pi -c or --session-id in two terminals). This one sends, but mail to this session is read by the other one; close one of them.`;
}

/** The words of a notice, sanitized and bounded. */
export function describeNotice(notice: MailNotice): string {
  // The table's entry for this kind takes this kind: TypeScript cannot see that through the index.
  const words = wordsOf[notice.kind] as (notice: MailNotice) => string;
  return sanitizeField(words(notice), noticeCharsMax);
}

/** How loud each notice is: an error loses mail or answers until something changes; info is news. */
const levelOf: { [K in Kind]: NoticeLevel } = {
  "mailbox-off": "error",
  "mailbox-on": "info",
  "mailbox-stopped": "error",
  "folder-open": "warning",
  config: "warning",
  guest: "warning",
  "owner-unclaimed": "warning",
  "owner-now": "info",
  "record-unwritten": "warning",
  "ledger-unwritten": "warning",
  "inbox-unreadable": "warning",
  hidden: "warning",
  "hidden-more": "warning",
  "journal-unwritten": "warning",
  "journal-unreadable": "warning",
  "journal-damaged": "warning",
  "claim-failed": "warning",
  "read-failed": "warning",
  "set-aside": "warning",
  "invalid-envelope": "warning",
  misaddressed: "warning",
  "listener-failed": "warning",
  "inject-failed": "warning",
  "sent-copy-failed": "warning",
  "answer-unwritten": "error",
  "answer-written": "info",
  "answers-given-up": "error",
  held: "info",
  pruned: "info",
};

export function noticeLevel(notice: MailNotice): NoticeLevel {
  return levelOf[notice.kind];
}
