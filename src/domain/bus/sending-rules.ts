// What `send` may write: the kinds, the text, and who `to` reaches. Pure: the engine
// hands it the sessions it judged.
import { err, ok, type Result } from "neverthrow";
import { codePointCount } from "../shared/text/code-points.js";
import type { BusKind } from "./bus-files.js";
import { sameLabel } from "./labels.js";
import { messageTextCharsMax } from "./limits.js";
import type { SessionState } from "./session-liveness.js";

const busKinds: readonly BusKind[] = ["message", "event", "ask", "handoff"];
/** `to` meaning every active session but this one; events only. */
export const broadcastTarget = "*";

export function isBusKind(value: string): value is BusKind {
  return (busKinds as readonly string[]).includes(value);
}

export type TextError = { kind: "empty-text" } | { kind: "text-too-long"; chars: number; charsMax: number };

/** Empty or blank text is refused, and so is text over the cap: nothing is cut. */
export function checkText(text: string): Result<string, TextError> {
  if (text.trim() === "") return err({ kind: "empty-text" });
  const chars = codePointCount(text);
  if (chars > messageTextCharsMax) return err({ kind: "text-too-long", chars, charsMax: messageTextCharsMax });
  return ok(text);
}

/** A session as a send sees it. */
export interface Addressee {
  id: string;
  label: string;
  state: SessionState;
}

export interface Recipient {
  id: string;
  label: string;
}

export type RecipientError =
  | { kind: "broadcast-needs-event"; given: BusKind }
  | { kind: "self-send" }
  | { kind: "no-recipient"; to: string }
  /** Its process is gone (or its heartbeat aged out): mail to it is refused, not queued. */
  | { kind: "recipient-gone"; to: string; id: string; label: string }
  /** A broadcast with no other active session. */
  | { kind: "no-peers" };

/** `to` is a full session id, a label (case-insensitive), or `*` with kind `event`; an active
 * session matching beats a gone one that once held the same label. */
export function resolveRecipients(
  to: string,
  kind: BusKind,
  self: { id: string; label: string },
  sessions: readonly Addressee[],
): Result<Recipient[], RecipientError> {
  const wanted = to.trim();
  const pick = (s: Addressee): Recipient => ({ id: s.id, label: s.label });
  if (wanted === broadcastTarget) {
    if (kind !== "event") return err({ kind: "broadcast-needs-event", given: kind });
    const peers = sessions.filter((s) => s.state === "active" && s.id !== self.id).map(pick);
    return peers.length > 0 ? ok(peers) : err({ kind: "no-peers" });
  }
  if (wanted === self.id || sameLabel(wanted, self.label)) return err({ kind: "self-send" });
  const matches = sessions.filter((s) => s.id === wanted || sameLabel(s.label, wanted));
  const active = matches.find((s) => s.state === "active");
  if (active !== undefined) return active.id === self.id ? err({ kind: "self-send" }) : ok([pick(active)]);
  const gone = matches[0];
  if (gone !== undefined) return err({ kind: "recipient-gone", to: wanted, id: gone.id, label: gone.label });
  return err({ kind: "no-recipient", to: wanted });
}
