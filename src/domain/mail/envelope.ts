import { err, ok, type Result } from "neverthrow";
import { either, integer, list, oneOf, record, text } from "../shared/shape.js";
import { type Address, isAddress } from "./address.js";
import { idCharsMax, inReplyToMax } from "./limits.js";

export const mailKinds = ["request", "ask", "message", "reply"] as const;
export type MailKind = (typeof mailKinds)[number];
export const replyStatuses = ["done", "stopped", "failed"] as const;
export type ReplyStatus = (typeof replyStatuses)[number];

/** What this package writes: all nine fields, always. */
export interface Envelope {
  id: string;
  from: Address;
  to: Address;
  kind: MailKind;
  hops: number;
  in_reply_to: string[];
  status: "" | ReplyStatus;
  ts: string;
  body: string;
}

/** What this package writes: its own ids are UUIDs, safe in a file name. */
const envelopeShape = record({
  id: text({ minLength: 1, maxLength: 128, pattern: /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/ }),
  from: text({ minLength: 1 }),
  to: text({ minLength: 1 }),
  kind: oneOf(mailKinds),
  hops: integer(0),
  in_reply_to: list(text({ minLength: 1 }), inReplyToMax),
  status: oneOf(["", ...replyStatuses]),
  ts: text(),
  body: text(),
});

/** What may be on disk: written by any copy of any implementation, old or new. Extra fields pass. */
interface StoredEnvelope {
  id: string;
  from: string;
  to: string;
  kind?: string;
  hops?: number;
  in_reply_to?: string[];
  status?: string;
  ts?: string | number;
  body: string;
}

const storedShape = record(
  {
    // Ids are data: read whatever another writer chose (no id ever becomes a path; labels sanitize it).
    id: text({ minLength: 1, maxLength: idCharsMax }),
    from: text({ minLength: 1 }),
    to: text({ minLength: 1 }),
    kind: text(),
    hops: integer(0),
    in_reply_to: list(text({ minLength: 1, maxLength: idCharsMax })),
    status: text(),
    ts: either(text(), (value, path) => (typeof value === "number" ? undefined : `${path} must be a number`)),
    body: text(),
  },
  ["kind", "hops", "in_reply_to", "status", "ts"],
);

export type DecodeError =
  | { kind: "not-json"; reason: string }
  | { kind: "bad-shape"; reason: string }
  | { kind: "too-many-requests"; count: number; max: number }
  | { kind: "bad-address"; field: "from" | "to"; value: string };

/** Reads an envelope from its file text under the spec's forward- and backward-compatibility rules. */
export function decodeEnvelope(text: string): Result<Envelope, DecodeError> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return err({ kind: "not-json", reason: e instanceof Error ? e.message : String(e) });
  }
  return normalizeEnvelope(raw);
}

export function normalizeEnvelope(value: unknown): Result<Envelope, DecodeError> {
  const problem = storedShape(value, "");
  if (problem !== undefined) return err({ kind: "bad-shape", reason: problem });
  const raw = value as StoredEnvelope;
  const inReplyTo = raw.in_reply_to ?? [];
  if (inReplyTo.length > inReplyToMax)
    return err({ kind: "too-many-requests", count: inReplyTo.length, max: inReplyToMax });
  if (!isAddress(raw.from)) return err({ kind: "bad-address", field: "from", value: raw.from });
  if (!isAddress(raw.to)) return err({ kind: "bad-address", field: "to", value: raw.to });
  const kind = readKind(raw.kind, inReplyTo.length);
  const envelope: Envelope = {
    id: raw.id,
    from: raw.from,
    to: raw.to,
    kind,
    hops: raw.kind === undefined && raw.hops === undefined ? 0 : (raw.hops ?? 0),
    in_reply_to: inReplyTo,
    status: kind === "reply" ? readStatus(raw.status) : "",
    ts: typeof raw.ts === "number" ? String(raw.ts) : (raw.ts ?? ""),
    body: raw.body,
  };
  return ok(envelope);
}

// Unknown kinds are read as message (the original is not kept); an envelope from before `kind`
// existed is a reply when it names what it answers, else a request.
function readKind(kind: string | undefined, inReplyToCount: number): MailKind {
  if (kind === undefined) return inReplyToCount > 0 ? "reply" : "request";
  return (mailKinds as readonly string[]).includes(kind) ? (kind as MailKind) : "message";
}

// A status this version does not know cannot claim to be an answer: it reads as failed.
function readStatus(status: string | undefined): ReplyStatus {
  if (status === undefined || status === "") return "done";
  return (replyStatuses as readonly string[]).includes(status) ? (status as ReplyStatus) : "failed";
}

/** Serializes an envelope, asserting the schema first: a bad envelope is a bug, never written. */
export function encodeEnvelope(envelope: Envelope): string {
  const invalid = envelopeShape(envelope, "");
  if (invalid !== undefined) throw new Error(`refusing to write an invalid envelope: ${invalid}`);
  // Readers refuse these as bad-address, so writing one would only strand the mail.
  if (!isAddress(envelope.from) || !isAddress(envelope.to)) {
    throw new Error("refusing to write an envelope: from and to must be addresses");
  }
  if ((envelope.kind === "reply") !== (envelope.status !== "")) {
    throw new Error("refusing to write an envelope: status is set exactly on replies");
  }
  return JSON.stringify(envelope);
}

/** Whether an entry of new/ may be mail: never a dot-file, and never a name listed with U+FFFD in
 * place of bytes that were not UTF-8 (no path made of it reaches the file). */
export function mayBeMailName(name: string): boolean {
  return name !== "" && !name.startsWith(".") && !name.includes("\ufffd") && !name.includes("/");
}

/** Digits of the send time that opens an envelope's file name (zero-padded, so names sort by it). */
const sendTimeDigits = 15;
const sendTimeName = new RegExp(`^\\d{${sendTimeDigits}}-`);

/** `<send time in ms, 15 digits>-<id>.json`: every implementation sorts an inbox by send time. */
export function envelopeFileName(sentAtMs: number, id: string): string {
  return `${String(Math.max(0, Math.trunc(sentAtMs))).padStart(sendTimeDigits, "0")}-${id}.json`;
}

/** Whether a name follows that convention (a name of another one sorts anywhere). */
export function hasSendTimeName(name: string): boolean {
  return sendTimeName.test(name);
}
