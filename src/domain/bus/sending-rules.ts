// What `send` may write: the kinds, the text, and who `to` reaches. Pure: the engine
// hands it the sessions it judged.
import { err, ok, type Result } from "neverthrow";
import { codePointCount } from "../shared/text/code-points.js";
import { sameLabel } from "../shared/text/same-label.js";
import type { BusKind } from "./bus-files.js";
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
  /** Pi's session name, when its record carries one. */
  name?: string | undefined;
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
  | { kind: "no-peers" }
  /** `to` is the label of one active session and the Pi name of another, or the name of several. */
  | { kind: "ambiguous-recipient"; to: string; candidates: { id: string; label: string; name?: string }[] };

/** `to` is a full session id, a label (case-insensitive), Pi's name of a session (exact, as mail
 * reads a name), or `*` with kind `event`; an active session matching beats a gone one that once
 * held the same label, and several active ones matching are refused naming each. */
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
  const named = sessions.filter((s) => s.name === wanted && !matches.includes(s));
  const active = [...matches, ...named].filter((s) => s.state === "active");
  if (active.length > 1) {
    const candidates = active.map((s) => ({ id: s.id, label: s.label, ...(s.name ? { name: s.name } : {}) }));
    return err({ kind: "ambiguous-recipient", to: wanted, candidates });
  }
  const [only] = active;
  if (only !== undefined) return only.id === self.id ? err({ kind: "self-send" }) : ok([pick(only)]);
  const gone = matches[0];
  if (gone !== undefined) return err({ kind: "recipient-gone", to: wanted, id: gone.id, label: gone.label });
  return err({ kind: "no-recipient", to: wanted });
}
