// Writing one envelope, every check passed: into the recipient's new/, a copy in sent/ (not of a
// reply), and a request or ask counted as awaited. Only the store can refuse it.
import { err, ok, type Result } from "neverthrow";
import type { StoreError } from "../../../ports/shared/store-error.js";
import { isoFromMs } from "../../shared/text/iso-time.js";
import type { Address } from "../address.js";
import type { AddressError } from "../addressing.js";
import type { Envelope, MailKind, ReplyStatus } from "../envelope.js";
import type { HopRefusal } from "../hop-rules.js";
import type { MailContext } from "./context.js";
import type { Footer } from "./footer.js";
import type { Presence } from "./presence.js";

export type SendError =
  | { kind: "no-session" }
  | { kind: "address"; error: AddressError }
  | { kind: "invalid-address"; to: string }
  | { kind: "empty-body" }
  | { kind: "body-too-large"; bytes: number; max: number }
  | HopRefusal
  | { kind: "not-running"; to: Address }
  /** The target's process is stopped (Ctrl-Z): it could not answer before it is continued. */
  | { kind: "target-stopped"; to: Address }
  | { kind: "ask-waiting"; on: Address }
  /** Its person refuses mail now (`/mailbox refuse`, in its running record). */
  | { kind: "refused"; to: Address; name: string | undefined }
  /** The ask would close a wait cycle: `to` waits (through the sessions `via`, in order, when there
   * are any) on an answer from this session. */
  | { kind: "deadlock"; to: Address; via?: Address[] }
  /** This process is a guest (the session is open twice): an answer would reach the other one. */
  | { kind: "not-owner" }
  | { kind: "store"; error: StoreError };

export interface Sent {
  envelope: Envelope;
  path: string;
  /** Whether the recipient has a running record right now. */
  recipientRunning: boolean;
  /** Sent, but the fsync of the recipient's new/ failed: it may not survive a power cut. */
  unsynced: StoreError | undefined;
}

/** What a write can fail on once every check passed. */
type WriteError = Extract<SendError, { kind: "store" }>;

interface MailFields {
  to: Address;
  kind: MailKind;
  hops: number;
  body: string;
  inReplyTo?: string[];
  status?: ReplyStatus;
}

export interface WriterParts {
  footer: Footer;
  presence: Presence;
}

export function writeMail(
  ctx: MailContext,
  parts: WriterParts,
  fields: MailFields,
  /** Whether the recipient runs, when the caller judged it already. */
  known?: boolean,
): Result<Sent, WriteError> {
  const me = ctx.session.address()!;
  const now = ctx.clock.now();
  const envelope: Envelope = {
    id: ctx.entropy.uuid(),
    from: me,
    to: fields.to,
    kind: fields.kind,
    hops: fields.hops,
    in_reply_to: fields.inReplyTo ?? [],
    status: fields.status ?? "",
    ts: isoFromMs(now),
    body: fields.body,
  };
  const delivered = ctx.store.deliver(envelope, now, { durable: ctx.durable });
  if (delivered.isErr()) return err({ kind: "store", error: delivered.error });
  // From here on the mail is in the recipient's new/: whatever fails next, it was sent.
  const { path, unsynced } = delivered.value;
  if (fields.kind !== "reply") {
    const kept = ctx.store.keepSent(envelope, now);
    if (kept.isErr()) ctx.notices.once("sent-copy", { kind: "sent-copy-failed", error: kept.error });
    if (fields.kind !== "message") parts.footer.await(envelope.id);
  }
  const recipientRunning = known ?? parts.presence.findRunning(fields.to) !== undefined;
  return ok({ envelope, path, recipientRunning, unsynced });
}
