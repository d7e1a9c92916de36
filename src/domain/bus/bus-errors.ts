// Every way a bus action fails, and the one describer that puts it into words. Anything a peer or
// the disk could have shaped (labels, ids, paths, file names, errno text) is sanitized here.
import type { StoreError } from "../../ports/shared/store-error.js";
import { describeStoreError, type StorePlace } from "../shared/store-error-words.js";
import { sanitizeField } from "../shared/text/sanitize.js";
import type { PathError } from "./claim-paths.js";
import type { ClaimConflict } from "./claim-rules.js";
import type { LabelError } from "./labels.js";
import { labelCharsMax, observedLapseMs, pathCharsMax } from "./limits.js";
import type { OfferLapse } from "./offers.js";
import { broadcastTarget, type RecipientError, type TextError } from "./sending-rules.js";

/** A recipient a send could not write for. */
export interface FailedDelivery {
  id: string;
  label: string;
  error: StoreError;
}

export type BusError =
  /** No session yet (the host has not started one): nothing to act as. */
  | { kind: "not-started" }
  | { kind: "missing"; field: "to" | "text" | "paths" }
  | { kind: "unknown-kind"; given: string }
  | { kind: "too-many-paths"; count: number; max: number }
  | { kind: "store"; error: StoreError }
  | { kind: "nobody-reached"; failed: FailedDelivery[] }
  /** Nothing claimed: live sessions hold colliding paths. `race`: they claimed at the same moment
   * (both may back off), rather than holding them before this claim began. */
  | { kind: "claim-conflict"; conflicts: ClaimConflict[]; race: boolean }
  /** `claims/` holds more entries than one listing reads: a claim checked against part of them
   * could collide with one past the bound, and a release could miss its own, so neither is done. */
  | { kind: "claims-unlisted"; entriesMax: number }
  /** Another process of this session id joined after this one and reads its mail: this one is off
   * the bus, and only an explicit join takes it back. */
  | { kind: "displaced"; pid: number | undefined }
  /** A handoff offered paths this session does not hold (by these exact keys): nothing was sent. */
  | { kind: "handoff-unheld"; keys: string[] }
  /** No offer of this id is addressed to this session (never made, taken, or removed). */
  | { kind: "no-offer"; id: string }
  /** The offer no longer stands: its sender left or released every path, or the TTL passed. */
  | { kind: "offer-lapsed"; id: string; reason: OfferLapse | "released" }
  /** `sessions/` holds more entries than one listing reads: a label may be held by a session past
   * the bound, and a claim's owner may be one, so neither is judged free. */
  | { kind: "records-unlisted"; entriesMax: number }
  | LabelError
  | TextError
  | RecipientError
  | PathError;

const label = (text: string) => sanitizeField(text, labelCharsMax);

/** A running session by its name and the start of its id, which tells sessions of one name apart
 * (`prefix`: the shortest start no other live session's id shares; else the first 8 characters). */
function holderWords(id: string, name: string | undefined, prefix = id.slice(0, 8)): string {
  const start = label(prefix);
  return name === undefined ? `the running session ${start}` : `the running session ${label(name)} (id ${start}…)`;
}
const path = (text: string) => sanitizeField(text, pathCharsMax);

/** The bus folder's store failures in words: the shared sentences, naming the bus folder and the
 * setting that moves it (the bus lives in Pi's agent folder). */
const busFolder: StorePlace = {
  root: "the bus folder",
  setting: "PI_CODING_AGENT_DIR",
  halted: "the bus is not used from it",
  pathCharsMax,
  messageCharsMax: pathCharsMax,
};

export function describeBusStoreError(error: StoreError): string {
  return describeStoreError(error, busFolder);
}

function lapseWords(reason: OfferLapse | "released"): string {
  switch (reason) {
    case "sender-left":
      return "its sender left the bus or is gone";
    case "recipient-left":
      return "this session left the bus since it was made";
    case "expired":
      return "it is older than the message TTL";
    case "released":
      return "its sender released every path it offered";
    default: {
      const never: never = reason;
      return never;
    }
  }
}

/** A path in the way, in words: what it is to the claim that holds it, and whose claim that is. */
export function describeConflict(conflict: ClaimConflict): string {
  // A holder is live, and a live session's label is its own alone: the label names it, no id needed.
  const name = label(conflict.holder.label);
  const holder =
    conflict.observed === true
      ? `${name} (taken by its edits: it lapses ${observedLapseMs / 60_000} minutes after ${name}'s last edit there)`
      : name;
  if (conflict.sameFile === true) {
    return `${path(conflict.path)} is the same file as ${path(conflict.heldPath)}, claimed by ${holder}`;
  }
  if (conflict.heldPath === conflict.path) return `${path(conflict.path)} is claimed by ${holder}`;
  // The path asked for is not itself claimed: it contains, or lies inside, the one that is.
  return `${path(conflict.path)} overlaps ${path(conflict.heldPath)}, claimed by ${holder}`;
}

export function describeBusError(error: BusError): string {
  switch (error.kind) {
    case "not-started":
      return "The bus has no session yet.";
    case "missing":
      return `Missing ${error.field}: nothing was done.`;
    case "unknown-kind":
      return `Unknown kind "${label(error.given)}": use message, event, ask or handoff.`;
    case "too-many-paths":
      return `${error.count} paths in one call; the limit is ${error.max}.`;
    case "store":
      return `The bus could not be read or written: ${describeBusStoreError(error.error)}.`;
    case "nobody-reached":
      return `Not delivered to anyone: ${error.failed.map((f) => `${label(f.label)} (${describeBusStoreError(f.error)})`).join(", ")}.`;
    case "claim-conflict": {
      const why = error.race ? " Another session claimed at the same moment; nothing was claimed, try again." : "";
      return `Nothing claimed: ${error.conflicts.map(describeConflict).join("; ")}.${why}`;
    }
    case "handoff-unheld":
      return `Nothing sent: a handoff offers paths this session holds, and it does not hold ${error.keys.map(path).join(", ")}. Claim them first, or send the handoff without paths (or as a message that names them).`;
    case "no-offer":
      return `No offer ${label(error.id)} is addressed to this session: it was taken already, or never made to it. Read the handoff again with session inbox.`;
    case "offer-lapsed":
      return `The offer ${label(error.id)} no longer stands: ${lapseWords(error.reason)}. Nothing moved; claim what you need, or ask the sender.`;
    case "claims-unlisted":
      return `The bus's claims/ folder holds more than ${error.entriesMax.toLocaleString("en-US")} entries, too many to read whole: nothing was claimed or released. Run session status to clear the claims of sessions that are gone, or remove what does not belong there.`;
    case "displaced":
      return `Another process${error.pid === undefined ? "" : ` (pid ${error.pid})`} of this session joined the bus after this one and reads its mail now: this one is off the bus. Join again (session join) to take the bus back here.`;
    case "records-unlisted":
      return `The bus's sessions/ folder holds more than ${error.entriesMax.toLocaleString("en-US")} entries, too many to read whole: nothing was done, since a session past them could hold this label or path. Run session status to clear the records of sessions that are gone, or remove what does not belong there.`;
    case "invalid-label":
      return `"${label(error.label)}" is not a label: use lower-case letters, digits, ".", "_" and "-", starting with a letter or digit, at most ${labelCharsMax} characters.`;
    case "label-taken":
      return `The label ${label(error.label)} is taken by ${holderWords(error.holder, error.holderName, error.holderPrefix)}; nothing was changed. Join under another label, or without one for a derived label.`;
    case "empty-text":
      return "The message is empty: nothing was sent.";
    case "text-too-long":
      return `The message is ${error.chars} characters; the limit is ${error.charsMax}. Nothing was sent.`;
    case "broadcast-needs-event":
      return `to "${broadcastTarget}" is for kind event only (this send is kind ${error.given}).`;
    case "self-send":
      return "That is this session: nothing was sent.";
    case "no-recipient":
      return `No active session is called "${label(error.to)}".`;
    case "recipient-gone":
      return `no active session: ${label(error.label)} (${label(error.id)}) is gone, so nothing was sent.`;
    case "no-peers":
      return "No other active session to send to.";
    case "ambiguous-recipient": {
      const each = error.candidates.map((c) =>
        c.name === undefined || c.name === c.label
          ? holderWords(c.id, c.label)
          : `${holderWords(c.id, c.label)}, named ${label(c.name)}`,
      );
      return `"${label(error.to)}" names ${error.candidates.length} active sessions: ${each.join("; ")}. Nothing was sent; send to a label, which is unique.`;
    }
    case "empty-path":
      return "An empty path names nothing.";
    case "path-too-long":
      return `A path is longer than ${error.charsMax} characters.`;
    case "repository-root":
      return `path "${path(error.given)}" is the repository, not a path in it.`;
    case "worktree-top":
      return `path "${path(error.given)}" is another worktree of this repository, not a path in it: claim its paths from it or through it.`;
    case "outside-repository":
      return `path "${path(error.given)}" is outside the repository.`;
    default: {
      const never: never = error;
      return never;
    }
  }
}
