// When a run settles, who gets which answer. Pure: the engine feeds it what the run read and
// how it ended, and writes the replies it returns.

import { sanitizeField } from "../shared/text/sanitize.js";
import type { Address } from "./address.js";
import type { ReplyStatus } from "./envelope.js";
import { heldRequestsMax, heldSendersNamedMax, inReplyToMax, labelFieldCharsMax } from "./limits.js";

/** Mail for the model that entered (or was injected into) the conversation. */
export interface OwedMail {
  id: string;
  from: Address;
  kind: "request" | "ask" | "message";
}

export type RunOutcome =
  | { kind: "done"; text: string }
  | { kind: "stopped"; text: string }
  | { kind: "failed"; error: string; text: string };

export interface SettleInput {
  /** Read during this run, in order. */
  read: readonly OwedMail[];
  /** Requests held from earlier runs the user stopped. */
  held: readonly OwedMail[];
  /** Injected but never read. */
  unread: readonly OwedMail[];
  /** Asks already answered with session_mail_reply. */
  answeredAsks: ReadonlySet<string>;
  outcome: RunOutcome;
}

interface PlannedReply {
  to: Address;
  inReplyTo: string[];
  status: ReplyStatus;
  body: string;
}

export interface SettlePlan {
  replies: PlannedReply[];
  /** Requests still owed after this run. */
  held: OwedMail[];
  /** Unread mail this run dropped: answered now, never answered again. */
  dropped: OwedMail[];
}

export const tookOverNote =
  "(The user stopped an earlier run partway and took over; the answer that follows is from the run that completed after that.)";

export function stoppedBody(text: string): string {
  const partial = text.trim() === "" ? "It wrote no text before the stop." : `Partial text:\n\n${text}`;
  return `(The user stopped this run before it finished; this is not an answer.) ${partial}`;
}

export function failedBody(error: string, text: string): string {
  const partial = text.trim() === "" ? "" : `\n\nPartial text:\n\n${text}`;
  return `(The run ended on an error and did not finish the job: ${error})${partial}`;
}

/** The answer to a held request given up because more than heldRequestsMax were held. */
export const givenUpBody = `(The session was stopped with more than ${heldRequestsMax} requests held for its next completed run; this one, among the oldest, was given up and nothing was done.)`;

export function droppedBody(kind: string): string {
  return `(The session was stopped before it read this ${kind}; nothing was done.)`;
}

/** The notice when a stop holds requests: whose they are, and that the next completed run answers
 * them (their senders see no reply until then). `nameOf` names a sender as the pane knows it. */
export function describeHeld(held: readonly OwedMail[], nameOf: (address: Address) => string): string {
  const bySender = groupBySender(held);
  const name = (from: Address) => sanitizeField(nameOf(from), labelFieldCharsMax);
  const what = "The run was stopped, so";
  const answers = "the next run that completes answers";
  if (held.length === 1) return `${what} the request from ${name(held[0]!.from)} is held: ${answers} it.`;
  if (bySender.size === 1)
    return `${what} ${held.length} requests from ${name(held[0]!.from)} are held: ${answers} them.`;
  const named = heldSendersNamed(held).map((from) => `${bySender.get(from)!.length} from ${name(from)}`);
  if (bySender.size > named.length) named.push(`and ${bySender.size - named.length} more senders`);
  return `${what} ${held.length} requests are held (${named.join(", ")}): ${answers} them.`;
}

/** The senders the held notice names, most held first: only these are looked up (a name may cost a
 * running record's read). */
export function heldSendersNamed(held: readonly OwedMail[]): Address[] {
  const senders = [...groupBySender(held)].sort((a, b) => b[1].length - a[1].length);
  return senders.slice(0, heldSendersNamedMax).map(([from]) => from);
}

/** One reply per sender for its requests; the caller keeps each sender's order. */
function groupBySender(mail: readonly OwedMail[]): Map<Address, OwedMail[]> {
  const groups = new Map<Address, OwedMail[]>();
  for (const m of mail) {
    const list = groups.get(m.from);
    if (list === undefined) groups.set(m.from, [m]);
    else list.push(m);
  }
  return groups;
}

/** One reply per sender, naming the requests it answers; more than inReplyToMax from one sender
 * are answered in several replies (an envelope names at most that many). */
function requestReplies(requests: readonly OwedMail[], body: (group: OwedMail[]) => string, status: ReplyStatus) {
  return [...groupBySender(requests)].flatMap(([to, group]) => {
    const replies: PlannedReply[] = [];
    for (let at = 0; at < group.length; at += inReplyToMax) {
      const chunk = group.slice(at, at + inReplyToMax);
      replies.push({ to, inReplyTo: chunk.map((m) => m.id), status, body: body(chunk) });
    }
    return replies;
  });
}

function askReplies(asks: readonly OwedMail[], status: ReplyStatus, body: string): PlannedReply[] {
  return asks.map((m) => ({ to: m.from, inReplyTo: [m.id], status, body }));
}

function unique(mail: readonly OwedMail[]): OwedMail[] {
  const seen = new Set<string>();
  return mail.filter((m) => {
    if (seen.has(m.id)) return false;
    seen.add(m.id);
    return true;
  });
}

export function planSettle(input: SettleInput): SettlePlan {
  const { outcome } = input;
  const requests = input.read.filter((m) => m.kind === "request");
  const asks = input.read.filter((m) => m.kind === "ask" && !input.answeredAsks.has(m.id));
  if (outcome.kind === "done") {
    const heldIds = new Set(input.held.map((m) => m.id));
    const all = unique([...input.held, ...requests]);
    const replies = requestReplies(
      all,
      (group) => (group.some((m) => heldIds.has(m.id)) ? `${tookOverNote}\n\n${outcome.text}` : outcome.text),
      "done",
    );
    replies.push(...askReplies(asks, "done", outcome.text));
    return { replies, held: [], dropped: [] };
  }
  // Stopped or failed: mail the run never read was dropped; it is answered failed now.
  const dropped = input.unread.filter((m) => m.kind !== "message");
  const replies = [
    ...requestReplies(
      dropped.filter((m) => m.kind === "request"),
      () => droppedBody("request"),
      "failed",
    ),
    ...dropped.filter((m) => m.kind === "ask").map((m) => askReplies([m], "failed", droppedBody("ask"))[0]!),
  ];
  if (outcome.kind === "stopped") {
    // A request is never answered stopped: the user took over, so it is held for the next completed
    // run; past heldRequestsMax the oldest are given up, answered failed so no sender waits forever.
    replies.push(...askReplies(asks, "stopped", stoppedBody(outcome.text)));
    const held = unique([...input.held, ...requests]);
    const givenUp = held.splice(0, Math.max(0, held.length - heldRequestsMax));
    replies.push(...requestReplies(givenUp, () => givenUpBody, "failed"));
    return { replies, held, dropped };
  }
  // Failed: requests held across an earlier stop stay held; this run's requests and asks get the error.
  const body = failedBody(outcome.error, outcome.text);
  replies.push(...requestReplies(requests, () => body, "failed"), ...askReplies(asks, "failed", body));
  return { replies, held: [...input.held], dropped };
}
