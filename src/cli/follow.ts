// What `switchboard tail` sees: each look lists the mail root's inboxes (new/ and cur/) and every bus
// inbox, and compares with the look before. A file new in new/ was sent; one that moved to cur/ was
// claimed (one seen first in cur/ was both between two looks); a bus file that appears was sent, one
// that goes was read. Reads only: nothing is claimed, moved or changed. It remembers what the last
// look saw, no more (a file gone from disk is forgotten), and of each piece of mail its first line.

import type { BusMessage } from "../domain/bus/bus-files.js";
import { isAddress } from "../domain/mail/address.js";
import type { Envelope } from "../domain/mail/envelope.js";
import { firstLine } from "../domain/shared/text/first-line.js";
import type { BusStore } from "../ports/bus/bus-store.js";
import type { MailStore } from "../ports/mail/mail-store.js";

export interface FollowEvent {
  half: "mail" | "bus";
  /** sent: it reached an inbox; claimed: its recipient took it (mail); read: it left a bus inbox. */
  event: "sent" | "claimed" | "read";
  id: string;
  kind: string;
  from: string;
  to: string;
  /** A reply's status. */
  status?: string;
  /** The first line of its body that says something, at most lineCharsMax characters. */
  line: string;
  /** The bus's folder key, for bus mail. */
  bus?: string;
}

/** How many files of one inbox folder a look reads at most (the newest). */
const perInboxMax = 200;
/** How much of a body's first line an event keeps. */
const lineCharsMax = 200;

interface Seen {
  where: "new" | "cur" | "bus";
  event: Omit<FollowEvent, "event">;
}

interface Follower {
  /** One look: the events since the last (none on the first, which only learns what is there). */
  look(): FollowEvent[];
}

/** What one look saw, and the events it found against the look before. */
interface Look {
  before: ReadonlyMap<string, Seen>;
  now: Map<string, Seen>;
  events: FollowEvent[];
  /** The first look tells nothing: it only learns what is there. */
  quiet: boolean;
}

export function createFollower(
  mail: MailStore,
  buses: () => ReadonlyArray<{ key: string; store: BusStore }>,
  nowMs: () => number,
): Follower {
  let seen = new Map<string, Seen>();
  let first = true;
  return {
    look() {
      const look: Look = { before: seen, now: new Map(), events: [], quiet: first };
      lookAtMail(mail, look);
      for (const { key, store } of buses()) lookAtBus(store, key, nowMs(), look);
      for (const [key, value] of seen) {
        if (value.where === "bus" && !look.now.has(key) && !first) look.events.push({ ...value.event, event: "read" });
      }
      // Only what this look saw is kept: memory follows what is on disk (at most perInboxMax a folder).
      seen = look.now;
      first = false;
      return look.events;
    },
  };
}

const tell = (look: Look, value: Seen, event: FollowEvent["event"]) => {
  if (!look.quiet) look.events.push({ ...value.event, event });
};

function mailEvent(envelope: Envelope): Omit<FollowEvent, "event"> {
  const event: Omit<FollowEvent, "event"> = {
    half: "mail",
    id: envelope.id,
    kind: envelope.kind,
    from: envelope.from,
    to: envelope.to,
    line: lineOf(envelope.body),
  };
  if (envelope.kind === "reply" && envelope.status !== "") event.status = envelope.status;
  return event;
}

const lineOf = (body: string) => Array.from(firstLine(body)).slice(0, lineCharsMax).join("");

function lookAtMail(mail: MailStore, look: Look): void {
  const boxes = mail.listBoxes();
  if (boxes.isErr()) return;
  for (const { address } of boxes.value) {
    if (!isAddress(address)) continue;
    const queued = mail.listNew(address);
    for (const name of queued.isOk() ? queued.value.names.slice(-perInboxMax) : []) {
      const key = `mail:${address}/${name}`;
      const before = look.before.get(key);
      if (before !== undefined) {
        look.now.set(key, before);
        continue;
      }
      const read = mail.readNew(address, name);
      if (!read.isOk() || read.value.kind !== "claimed") continue;
      const value: Seen = { where: "new", event: mailEvent(read.value.envelope) };
      look.now.set(key, value);
      tell(look, value, "sent");
    }
    const taken = mail.listBox(address, "cur");
    for (const name of taken.isOk() ? taken.value.slice(-perInboxMax) : []) {
      const key = `mail:${address}/${name}`;
      const before = look.before.get(key);
      if (before?.where === "cur") {
        look.now.set(key, before);
        continue;
      }
      if (before !== undefined) {
        const value: Seen = { where: "cur", event: before.event };
        look.now.set(key, value);
        tell(look, value, "claimed");
        continue;
      }
      const read = mail.readCur(address, name);
      if (!read.isOk() || read.value.kind !== "claimed") continue;
      // Sent and claimed between two looks (a recipient takes mail within milliseconds): both told.
      const value: Seen = { where: "cur", event: mailEvent(read.value.envelope) };
      look.now.set(key, value);
      tell(look, value, "sent");
      tell(look, value, "claimed");
    }
  }
}

function busEvent(message: BusMessage, key: string): Omit<FollowEvent, "event"> {
  return {
    half: "bus",
    id: message.id,
    kind: message.kind,
    from: message.from,
    to: message.to,
    line: lineOf(message.text),
    bus: key,
  };
}

function lookAtBus(store: BusStore, busKey: string, nowMs: number, look: Look): void {
  const inboxes = store.listInboxes();
  if (inboxes.isErr()) return;
  for (const id of inboxes.value) {
    // Messages past their time to live are no longer mail: a look never reports them as sent.
    const peeked = store.peekInbox(id, perInboxMax, { nowMs, expiredBeforeMs: 0 });
    if (peeked.isErr()) continue;
    for (const entry of peeked.value.entries) {
      if (entry.kind !== "message") continue;
      const key = `bus:${busKey}/${id}/${entry.name}`;
      const before = look.before.get(key);
      const value = before ?? { where: "bus", event: busEvent(entry.message, busKey) };
      look.now.set(key, value);
      if (before === undefined) tell(look, value, "sent");
    }
  }
}
