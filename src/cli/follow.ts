// What `switchboard tail` sees: each look lists the mail root's inboxes (new/ and cur/) and every bus
// inbox, and compares with the look before. A file new in new/ was sent; one that moved to cur/ was
// claimed (one seen first in cur/ was both between two looks); a bus file that appears was sent, one
// that goes was read. Reads only: nothing is claimed, moved or changed.

import type { BusMessage } from "../domain/bus/bus-files.js";
import { isAddress } from "../domain/mail/address.js";
import type { Envelope } from "../domain/mail/envelope.js";
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
  body: string;
  /** The bus's folder key, for bus mail. */
  bus?: string;
}

/** How many files of one inbox a look reads at most (the newest). */
const perInboxMax = 200;
/** How many names the follower remembers at most, oldest forgotten first. */
const rememberedMax = 20_000;

interface Seen {
  where: "new" | "cur" | "bus";
  event: Omit<FollowEvent, "event">;
}

interface Follower {
  /** One look: the events since the last (none on the first, which only learns what is there). */
  look(): FollowEvent[];
}

export function createFollower(
  mail: MailStore,
  buses: () => ReadonlyArray<{ key: string; store: BusStore }>,
  nowMs: () => number,
): Follower {
  const seen = new Map<string, Seen>();
  let first = true;
  const remember = (key: string, value: Seen) => {
    seen.delete(key);
    seen.set(key, value);
    if (seen.size > rememberedMax) seen.delete(seen.keys().next().value!);
  };
  return {
    look() {
      const events: FollowEvent[] = [];
      const present = new Set<string>();
      lookAtMail(mail, seen, present, (key, value, event) => {
        remember(key, value);
        if (!first && event !== undefined) events.push({ ...value.event, event });
      });
      for (const { key: busKey, store } of buses()) {
        lookAtBus(store, busKey, nowMs(), present, (key, value) => {
          const known = seen.has(key);
          remember(key, value);
          if (!first && !known) events.push({ ...value.event, event: "sent" });
        });
      }
      for (const [key, value] of seen) {
        if (value.where !== "bus" || present.has(key)) continue;
        seen.delete(key);
        if (!first) events.push({ ...value.event, event: "read" });
      }
      first = false;
      return events;
    },
  };
}

function mailEvent(envelope: Envelope): Omit<FollowEvent, "event"> {
  const event: Omit<FollowEvent, "event"> = {
    half: "mail",
    id: envelope.id,
    kind: envelope.kind,
    from: envelope.from,
    to: envelope.to,
    body: envelope.body,
  };
  if (envelope.kind === "reply" && envelope.status !== "") event.status = envelope.status;
  return event;
}

type Note = (key: string, value: Seen, event: FollowEvent["event"] | undefined) => void;

function lookAtMail(mail: MailStore, seen: ReadonlyMap<string, Seen>, present: Set<string>, note: Note): void {
  const boxes = mail.listBoxes();
  if (boxes.isErr()) return;
  for (const { address } of boxes.value) {
    if (!isAddress(address)) continue;
    const queued = mail.listNew(address);
    for (const name of queued.isOk() ? queued.value.names.slice(-perInboxMax) : []) {
      const key = `mail:${address}/${name}`;
      present.add(key);
      if (seen.has(key)) continue;
      const read = mail.readNew(address, name);
      if (read.isOk() && read.value.kind === "claimed")
        note(key, { where: "new", event: mailEvent(read.value.envelope) }, "sent");
    }
    const taken = mail.listBox(address, "cur");
    for (const name of taken.isOk() ? taken.value.slice(-perInboxMax) : []) {
      const key = `mail:${address}/${name}`;
      const before = seen.get(key);
      if (before?.where === "cur") continue;
      if (before !== undefined) {
        note(key, { where: "cur", event: before.event }, "claimed");
        continue;
      }
      const read = mail.readCur(address, name);
      if (!read.isOk() || read.value.kind !== "claimed") continue;
      // Sent and claimed between two looks (a recipient takes mail within milliseconds): both told.
      const event = mailEvent(read.value.envelope);
      note(key, { where: "new", event }, "sent");
      note(key, { where: "cur", event }, "claimed");
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
    body: message.text,
    bus: key,
  };
}

function lookAtBus(
  store: BusStore,
  busKey: string,
  nowMs: number,
  present: Set<string>,
  note: (key: string, value: Seen) => void,
): void {
  const inboxes = store.listInboxes();
  if (inboxes.isErr()) return;
  for (const id of inboxes.value) {
    // Messages past their time to live are no longer mail: a look never reports them as sent.
    const peeked = store.peekInbox(id, perInboxMax, { nowMs, expiredBeforeMs: 0 });
    if (peeked.isErr()) continue;
    for (const entry of peeked.value.entries) {
      if (entry.kind !== "message") continue;
      const key = `bus:${busKey}/${id}/${entry.name}`;
      present.add(key);
      note(key, { where: "bus", event: busEvent(entry.message, busKey) });
    }
  }
}
